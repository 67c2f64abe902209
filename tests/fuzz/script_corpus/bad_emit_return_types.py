def f(x, c: bool):
    if c:
        return 1
    return x
