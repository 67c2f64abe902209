def f(x):
    return g(x)

def g(x, s: float = 1.0 / 3):
    return x * s
