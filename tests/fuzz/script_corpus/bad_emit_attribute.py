def f(x):
    return x.shape
