def advanced_indexing(x, i, m, v):
    a = x[0, :, i] + x[i, 1] + x[i, 1:, i]
    b = x[m] * x[i, i, i].sum()
    return a, b, torch.index_put(x, [i, i], v, True), torch.index_put(x, [m], v)
