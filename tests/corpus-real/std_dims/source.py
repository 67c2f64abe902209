def std_dims(x):
    return torch.std(x, [0, 2]) * torch.var(x, -1, True, True).sum()
