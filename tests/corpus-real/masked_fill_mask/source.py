def masked_fill_mask(x, v):
    return x.masked_fill(x > 0.5, -1.5) * x, torch.tanh(x).masked_fill(x < 0, v)
