def f(x, n: int = 1, m: int):
    return x
