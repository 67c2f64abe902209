def f(x):
    s = "abc
    return x
