def pad_reflect(x, y, z, n, e):
    """F.pad in mode 'reflect' (aten::pad; gradient reflection_pad{1,2,3}d_backward): 1-D pads
    on a batched and an unbatched input, pads one short of the dim, negative pads, 2-D pads on
    a 4-D and a 3-D input, 3-D pads on a 4-D input; squared, so that every place of the
    gradient differs; n holds NaN and inf, e has no batch."""
    a = F.pad(x, [2, 4], mode='reflect')
    b = F.pad(x[0], [-1, 3], mode='reflect')
    c = F.pad(y, [1, 2, 2, 0], mode='reflect')
    d = F.pad(y[0], [0, 3, -1, 1])
    f = F.pad(z, [1, 0, 0, 1, 1, 1], mode='reflect')
    return (a * a, b * b, c * c, torch.tanh(d), f * f, F.pad(n, [2, 2], mode='reflect'),
            F.pad(e, [1, 1, 1, 1], mode='reflect'))
