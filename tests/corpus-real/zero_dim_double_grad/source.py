def zero_dim_double_grad(x, z):
    """The 0-dim float64 input's gradient is float64, as PyTorch's engine casts it (its value,
    a float32 sum of 2s, is exact, so float32 summation order cannot show)."""
    return (x + z) * 2.0
