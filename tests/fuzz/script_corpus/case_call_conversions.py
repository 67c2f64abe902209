def f(x):
    return torch.max_pool2d(x, 2, [], 0, 1, True) + x.to("cpu")
