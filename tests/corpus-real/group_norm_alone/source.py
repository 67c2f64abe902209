def group_norm_alone(x, w, b):
    return torch.group_norm(x, 2, w, b, 1e-5, False)
