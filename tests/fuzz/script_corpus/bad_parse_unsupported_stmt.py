def f(x):
    del x
    return x
