def f(x):
    """doc
    return x
