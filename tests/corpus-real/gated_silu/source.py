def gated_silu(x, w):
    return torch.tanh(F.silu(x + w)) * torch.sigmoid(w)
