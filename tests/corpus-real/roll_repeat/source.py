def roll_repeat(x, y, z, e):
    """torch.roll along listed dims (shifts past the size, negative shifts and dims) and along
    the flattened tensor, Tensor.repeat adding a dim, on NaN and infinities, a 0-dim and an
    empty tensor; products with other inputs make every gradient place distinct."""
    a = torch.roll(x, [5, -7], [-2, 1]) * y
    b = torch.roll(x, 3) * y
    c = torch.tanh(x.repeat([2, 1, 2])) * z
    s = x.sum()
    return a, b, c, torch.roll(s, 2), s.repeat([2, 3]), torch.roll(e, -1, 0), e.repeat(2, 3)
