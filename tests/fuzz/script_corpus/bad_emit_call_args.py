def f(x):
    return g(x, 2)

def g(x, s: float):
    return x
