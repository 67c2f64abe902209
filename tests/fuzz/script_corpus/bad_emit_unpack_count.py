def f(x):
    a, b = (x, x, x)
    return a
