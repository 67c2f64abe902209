def f(x: 3):
    return x
