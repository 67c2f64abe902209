def cumprod_zeros(x, y, z, e, s):
    """torch.cumprod along dims (negative, a dtype), with PyTorch 1.13's cumprod_backward: x
    without zeros but with an inf (reversed_cumsum(g * out) / x), y one zero per row at the
    start, middle and end, z two zeros in a row with a NaN after the second and an inf between
    them, e is empty along dim 1, s is 0-dim."""
    return (torch.cumprod(x, 1), torch.cumprod(x, -2), torch.cumprod(x, 0, dtype=torch.float64),
            torch.cumprod(y, 1), torch.cumprod(y, 0), torch.cumprod(z, -1), torch.cumprod(e, 1),
            torch.cumprod(e, 0), torch.cumprod(s, 0), torch.cumprod(s, -1))
