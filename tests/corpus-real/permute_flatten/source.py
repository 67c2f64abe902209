def permute_flatten(x, w):
    return torch.tanh(x.permute(2, 0, -2)).contiguous().flatten(1) * w
