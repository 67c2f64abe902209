def special_value_grads(x, a, b):
    """Gradients where PyTorch's backward picks a branch by a comparison: elu's scale and
    leaky_relu's slope at NaN and +inf (PyTorch's scalar loop), xlogy's log(other) where self is
    0, and 0 there when other is 0 or below."""
    return F.elu(x, 0.5) * 2.0, F.leaky_relu(x, 0.2) * 3.0, torch.xlogy(a, b)
