def f(x):
    return torch.frobnicate(x)
