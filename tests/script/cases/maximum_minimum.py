def maximum_minimum(a, b):
    return torch.maximum(a, b) - torch.minimum(a.relu(), b)
