def cumsum_dims(x):
    return torch.cumsum(x, 1) * torch.tanh(x), torch.cumsum(x * x, 0, dtype=torch.float64)
