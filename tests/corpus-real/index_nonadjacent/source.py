def index_nonadjacent(y, i, j, k, m):
    """Index tensors apart (y[i, :, j]): their broadcast dims go first; a 2-D index in the
    middle dim; a mask over the two leading dims."""
    a = y[i, :, j]
    b = y[:, k]
    c = y[m]
    return a * 3.0, torch.exp(b), c * c
