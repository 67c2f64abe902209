def f(x, c: bool):
    if c:
        y = x
    return y
