def nan_logit_floor_divide(x, n, z, e):
    """torch.nan_to_num (defaults, given values, a posinf past float32's range), torch.logit
    without and with eps (0, 1, outside [0, 1], NaN, below eps), torch.floor_divide (floats by
    a tensor and a number: signs, a zero divisor; x takes no gradient, PyTorch has no
    derivative for it), torch.xlogy with a number on either side; e is empty."""
    return (torch.nan_to_num(n), torch.nan_to_num(n, 0.5, 1e300, -10.0),
            torch.nan_to_num(n, posinf=3.0), torch.logit(z), torch.logit(z, 0.2),
            torch.floor_divide(x, x.flip([0])), torch.floor_divide(x, -0.7),
            torch.floor_divide(x, 0.0), torch.xlogy(2.0, z), torch.xlogy(z, 3.0),
            torch.xlogy(0.0, z), torch.nan_to_num(e), torch.logit(e, 0.25))
