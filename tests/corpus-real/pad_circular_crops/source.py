def pad_circular_crops(x, e):
    """F.pad in mode 'circular' with negative pads on two dims (each cropped place's gradient a
    zero) and beside an empty padded dim (e: its gradient is empty)."""
    a = F.pad(x, [-1, 2, 1, -2], mode='circular')
    return a * a, F.pad(e, [0, 0, -1, 0], mode='circular')
