def tensor_norms(x, z, e):
    """Tensor.norm with a number p as scripts call it (aten::norm.Scalar, norm.ScalarOpt_dim):
    p 2, 1, inf, -inf, 0, 3 and -1.5 over every element and along dims (negative, keepdim),
    on NaN and infinities; z has a zero row (the 2-norm's gradient is 0 there) and ties for
    its largest magnitude; e is empty, whose norms are 0 for every p."""
    inf = float("inf")
    return (x.norm(), x.norm(p=1), x.norm(2, -1, True), x.norm(inf, [0]), z.norm(-inf, 1),
            z.norm(0), z.norm(3.0, [0, 1]), z.norm(inf), z.norm(2, 1), z.norm(-1.5, [1], True),
            e.norm(), e.norm(-1.5, [1]), e.norm(inf))
