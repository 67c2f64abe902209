def f(x):
    return torch.mm(x, 2)
