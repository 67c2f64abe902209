def index_put_values(x, v, w, i, u, m):
    """torch.index_put (a Tensor[] for the Tensor?[]): rows written (values broadcast from a
    row), rows accumulated (a repeated index adds twice), a mask filled with a 0-dim value."""
    a = torch.index_put(x, [u], v)
    b = torch.index_put(x, [i], torch.tanh(v) * 2.0, True)
    c = torch.index_put(x * 0.5, [m], w)
    return a, b * b, c
