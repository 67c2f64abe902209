def max_pool2d_ceil(x):
    return torch.max_pool2d(x, [3, 2], [2, 2], [1, 0], [1, 1], True) * torch.tanh(x).sum()
