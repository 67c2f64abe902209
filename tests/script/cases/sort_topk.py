def sort_topk(x):
    a, b = torch.topk(x, 2)
    c, d = torch.sort(x, dim=0, descending=True)
    e, h = x.sort(stable=True)
    return a * 2.0, b, c, d, torch.argsort(x), e, h, torch.argsort(x, stable=True, dim=0)
