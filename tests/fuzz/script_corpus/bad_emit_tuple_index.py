def f(t: Tuple[Tensor, Tensor]):
    return t[2]
