def f(t: Tuple[Tensor, Tensor]):
    y = t[0]
    for x in t:
        continue
    return y
