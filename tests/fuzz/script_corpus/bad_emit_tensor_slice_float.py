def f(x):
    return x[0, 1:2:0.5]
