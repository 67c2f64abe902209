def gather_dims(x, i):
    return torch.gather(x, 1, i) * 2.0, x.gather(0, i) * torch.tanh(x[:, :2])
