def f(x: Optional[int, int]):
    return x
