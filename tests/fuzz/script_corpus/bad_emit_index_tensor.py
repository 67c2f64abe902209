def f(x, i):
    return x[i]
