def split_list_escapes(x, y):
    """A list that split makes and len and indexing read: it cannot stay in a
    DifferentiableGraph (no gradient crosses a Tensor[]), so the group around it dissolves."""
    a = torch.tanh(x) * y
    b = torch.sigmoid(a) * torch.exp(a)
    parts = b.split(2, 1)
    n = len(parts)
    return parts[0] * float(n) + parts[1], (a * b).sum()
