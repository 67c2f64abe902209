def dict_of_tensors(x, y):
    d: Dict[str, torch.Tensor] = {"x": x, "y": torch.tanh(y)}
    d["xy"] = x * y
    d["x"] = d["x"] * 2.0
    total = torch.zeros_like(x)
    for k in d:
        total = total * 0.5 + d[k]
    if "y" in d:
        total = total + d.get("y", x) * float(len(d))
    missing = d.get("z", y)
    first = d.pop("x")
    return total + missing, first * torch.cat(d.values()).sum()
