def f(x):
    return x[None, 1:2]
