def f(x: Tensor, i: Tensor, d: int):
    a = x[..., :d]
    b = x[..., 0]
    c = x[0, ..., 1:]
    e = x[..., None] * x[:, None]
    g = x[..., 1:, None, -1]
    h = x[i, ..., 0]
    return a, b, c, e, g, h
