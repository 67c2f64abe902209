def batch_norm_alone(x, w, b):
    return torch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False)
