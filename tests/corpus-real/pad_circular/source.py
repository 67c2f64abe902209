def pad_circular(x, y, z, n, e):
    """F.pad in mode 'circular' (_pad_circular's copies; the gradient adds the wrapped slices
    back): pads as large as the dim, negative pads on one side, 2-D pads with corners, 3-D
    pads; n holds NaN and inf, e is empty along the channels."""
    a = F.pad(x, [1, 3], mode='circular')
    b = F.pad(x, [-1, 2], mode='circular')
    c = F.pad(y, [2, 1, 3, 3], mode='circular')
    d = F.pad(y, [3, -1, -1, 1], mode='circular')
    f = F.pad(z, [1, 0, 0, 1, 2, 1], mode='circular')
    return (a * a, b * b, c * c, d * d, f * f, F.pad(n, [2, 1], mode='circular'),
            F.pad(e, [1, 1], mode='circular'))
