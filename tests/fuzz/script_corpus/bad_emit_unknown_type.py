def f(x: Foo):
    return x
