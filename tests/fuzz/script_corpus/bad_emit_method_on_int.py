def f(x, n: int):
    return n.exp()
