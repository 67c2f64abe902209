def f(x):
    return x
    x = x + 1
