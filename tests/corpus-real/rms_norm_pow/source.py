def rms_norm_pow(x, w):
    """An int exponent (x.pow(2), (1 - p) ** 2) beside a float one, in one differentiable graph:
    the symbolic_script formula written for a float exponent must not take the int ones."""
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    p = torch.sigmoid(y)
    return (1 - p) ** 2 * y + torch.pow(p, 2.5)
