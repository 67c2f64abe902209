def f(x, c: bool):
    if c:
        break
    return x
