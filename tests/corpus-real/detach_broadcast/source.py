def detach_broadcast(x, y):
    a, b = torch.broadcast_tensors(x, y)
    return x.detach() * x, a * b + torch.tanh(a), x * float(x.sum()) + int(x.sum())
