def mean_dims(x):
    return torch.tanh(x.mean(dim=[0, -1], keepdim=True)) * x + x.mean(1).sum()
