def threshold_remainder_special(x, y):
    """F.threshold in a DifferentiableGraph: its symbolic formula g * (x > threshold) gives 0
    at a NaN x (PyTorch's autograd would pass it); remainder's gradient for other is -g * floor
    division, NaN for an infinite self."""
    return F.threshold(x * y + x, 0.5, -2.0) * y, torch.remainder(x, y) * 3.0
