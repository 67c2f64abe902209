def f(x):
    return x.if()
