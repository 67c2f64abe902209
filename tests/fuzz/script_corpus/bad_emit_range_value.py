def f(x):
    r = range(3)
    return x
