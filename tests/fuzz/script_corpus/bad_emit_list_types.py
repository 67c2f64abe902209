def f(x, n: int):
    return [x, n]
