def conv2d_groups_dilated(x, w):
    return torch.conv2d(x, w, None, [1, 2], [2, 1], 2, 2) * x.sum()
