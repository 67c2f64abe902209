def f(x, c: bool):
    if c:
        y = x
    else:
        y = 1
    return y
