def f(x, c: bool):
    return x if c
