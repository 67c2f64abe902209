def f(x):
    return g(x)

def g(x):
    return y
