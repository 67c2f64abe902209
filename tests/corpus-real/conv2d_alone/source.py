def conv2d_alone(x, w, b):
    return torch.conv2d(x, w, b, 1, 1, 1, 1)
