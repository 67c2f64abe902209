def gelu_both(x):
    return F.gelu(x) * torch.sigmoid(x) + F.gelu(x, approximate="tanh")
