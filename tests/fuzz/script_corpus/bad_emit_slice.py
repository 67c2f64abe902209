def f(t: Tuple[Tensor, Tensor]):
    return t[0:1]
