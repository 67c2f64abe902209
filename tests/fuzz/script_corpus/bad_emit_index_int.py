def f(n: int):
    return n[0]
