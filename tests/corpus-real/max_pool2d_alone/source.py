def max_pool2d_alone(x):
    return torch.max_pool2d(x, 2, [], 0, 1, True)
