def f(x):
    x + 1 = x
    return x
