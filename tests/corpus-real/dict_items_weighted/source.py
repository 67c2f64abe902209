def dict_items_weighted(x, w):
    d: Dict[int, torch.Tensor] = {}
    for i in range(3):
        d[i] = x * float(i + 1)
    d[1] = d[1] + w
    total = torch.zeros_like(x)
    for k, v in d.items():
        total = total + v * float(k + 1)
    names: List[str] = ["a", "b"]
    if "b" in names and 5 not in d:
        total = total * 2.0
    return total, d[2] * w
