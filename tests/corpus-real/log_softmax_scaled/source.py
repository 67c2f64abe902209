def log_softmax_scaled(x, w):
    return torch.log_softmax(x * w, dim=-2)
