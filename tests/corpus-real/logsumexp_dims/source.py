def logsumexp_dims(x):
    return torch.logsumexp(x, 1) * 2.0 + torch.logsumexp(x, [0, 1], keepdim=True).sum()
