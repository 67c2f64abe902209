def bitwise(mask, other, x, n: int, flag: bool):
    keep = (mask & other) | ~mask
    flip = mask ^ other
    both = torch.logical_and(x > 0, torch.logical_not(keep))
    k = (n | 4) ^ (n & 1)
    if flag | (k > 3) and not (flag & False):
        flip = flip & 1
    bad = torch.isnan(x) | torch.isinf(x)
    return keep, flip, both, torch.logical_xor(both, mask), k, bad & torch.isfinite(x)
