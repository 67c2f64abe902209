def f(x):
    return x + 012
