def f(x):
    a, b = x
    return a
