def f(x):
    return y
