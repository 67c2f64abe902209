def avg_pool2d_padded(x):
    return torch.tanh(F.avg_pool2d(x, 3, 2, 1)), F.avg_pool2d(x, [2, 3], [1, 2], [1, 1], True,
                                                               False)
