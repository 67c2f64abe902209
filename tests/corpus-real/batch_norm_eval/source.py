def batch_norm_eval(x, w, b, running_mean, running_var):
    return F.batch_norm(x, running_mean, running_var, w, b, False, 0.1, 1e-3) * torch.tanh(x)
