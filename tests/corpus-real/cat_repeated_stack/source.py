def cat_repeated_stack(x, y, w, v):
    """cat with one tensor twice and one that takes no gradient (w), stack, and
    broadcast_tensors: their Tensor[] gradients reach every tensor the lists were built from."""
    t = torch.tanh(x)
    c = torch.cat([t, w, t * y], 0)
    s = torch.stack([x, y], 2)
    a, b = torch.broadcast_tensors(x, v)
    return torch.sigmoid(c) * 2.0, s.exp().sum(2) * a + b * torch.tanh(b)
