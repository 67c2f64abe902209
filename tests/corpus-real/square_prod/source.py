def square_prod(a, b, y, v, z, w, e, s):
    """torch.square and torch.prod over every element and along a dim (negative, keepdim, a
    dtype), with PyTorch 1.13's prod_backward: a and b hold no zero (g * result / self; b's
    inf gives NaN at itself), y one zero (the exact products of the others), v one zero and
    an inf in another row (every slice then takes the products of the others, so the inf's
    gradient is finite), z two zeros in a row (zeros over every element), w two zeros and a
    NaN (zeros over every element though the product is NaN), e is empty along dim 1, s is
    0-dim (its gradient is g)."""
    return (torch.square(a), a.prod(), torch.prod(a, 1), torch.prod(a, -1, True),
            a.prod(dtype=torch.float64), torch.square(b) + torch.prod(b, 0), torch.prod(b, 1),
            y.prod(), torch.prod(y, 0, True), torch.prod(v, 1), z.prod(), torch.prod(z, -1),
            w.prod(), e.prod(), torch.prod(e, 1), torch.prod(e, 0, True), s.prod(),
            torch.prod(s, 0), torch.square(s))
