def f(x):
    for v in x:
        x = x + v
    return x
