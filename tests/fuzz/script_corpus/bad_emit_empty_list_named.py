def f(x):
    s = []
    return torch.max_pool2d(x, 2, s)
