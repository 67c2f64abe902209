def batch_norm_train(x, w, b):
    return torch.tanh(torch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False))
