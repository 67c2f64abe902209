def f(x: Tensor, m: Optional[Tensor], b: Optional[Tensor], n: Optional[int]):
    if m is not None:
        x = x + m[0]
    if b is None:
        y = x
    else:
        y = x * b
    if m is not None:
        y = y + m * 2.0
    if n is not None:
        y = y * n
    return y
