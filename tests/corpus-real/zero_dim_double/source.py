def zero_dim_double(x, z):
    """A float32 tensor with a 0-dim float64 one: PyTorch keeps float32 (0-dim tensors rank
    below dimensioned ones in type promotion), fused or not."""
    return torch.sigmoid(x * x + z) * x
