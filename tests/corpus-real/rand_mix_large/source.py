def rand_mix_large(x):
    return x * torch.rand_like(x) + torch.tanh(x) * torch.randn_like(x) + torch.rand_like(x)
