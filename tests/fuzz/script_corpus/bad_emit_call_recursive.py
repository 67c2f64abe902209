def f(x, n: int):
    return g(x, n)

def g(x, n: int):
    if n > 0:
        return f(x, n - 1)
    return x
