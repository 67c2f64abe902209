def f(x, c: bool):
    assert c, 3
    return x
