def f(x):
    x += 1
    return x
