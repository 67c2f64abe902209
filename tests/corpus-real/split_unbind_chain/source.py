def split_unbind_chain(x, y):
    """split and unbind inside a DifferentiableGraph: the pieces' gradients become the list's
    gradient, zeros for the piece (u1) that gets none."""
    a = torch.tanh(x) * y
    p, q, r = a.split([1, 2, 1], 1)
    u0, u1, u2 = torch.unbind(torch.sigmoid(q) + p, 0)
    return u0 * u2 * torch.exp(r).sum(), torch.exp(a).sum()
