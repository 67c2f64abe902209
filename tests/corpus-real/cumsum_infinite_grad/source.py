def cumsum_infinite_grad(x, y):
    """cumsum under an infinite gradient: its reversed cumulative sum is inf where PyTorch's is
    (a gradient written as sum(g) - cumsum(g) + g gives NaN there)."""
    return torch.cumsum(x, 0) * y, torch.cumsum(x, 1) * 2.0
