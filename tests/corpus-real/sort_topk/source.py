def sort_topk(x, y):
    """sort, topk and argsort: NaN sorts as the largest (last ascending, first descending and
    in topk's largest), infinities as numbers; the values' gradient goes back where they came
    from. Ties only in y, sorted stably (stable=True; PyTorch's default sort keeps their order
    too along dims of at most 16 elements)."""
    a, i = torch.sort(x, 1)
    b, j = torch.sort(x, dim=0, descending=True)
    c, k = torch.topk(x, 2)
    d, m = torch.topk(x, 3, dim=-2, largest=False)
    e, n = y.sort(stable=True, descending=True)
    f, p = torch.sort(y, -1)
    return (a * 2.0, i, b, j, c, k, torch.tanh(d), m, e * e, n, f, p, torch.argsort(x, 1, True),
            torch.argsort(y, stable=True, dim=0))
