def f(x):
    return x + 99999999999999999999
