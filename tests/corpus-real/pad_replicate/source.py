def pad_replicate(x, y, z, n, e):
    """F.pad in mode 'replicate' (gradient replication_pad{1,2,3}d_backward): pads larger than
    the dim, negative pads, 2-D pads on 3-D and 4-D inputs, 3-D pads on a 5-D input; n holds
    NaN and inf, e has no batch."""
    a = F.pad(x, [3, 7], mode='replicate')
    b = F.pad(x, [-2, 2], mode='replicate')
    c = F.pad(y, [2, -1, 0, 4], mode='replicate')
    d = F.pad(y[0], [1, 1, 1, 1], mode='replicate')
    f = F.pad(z, [1, 2, 0, 1, 2, 0], mode='replicate')
    return (a * a, b * b, c * c, d * d, f * f, F.pad(n, [1, 3], mode='replicate'),
            F.pad(e, [1, 1, 1, 1, 1, 1], mode='replicate'))
