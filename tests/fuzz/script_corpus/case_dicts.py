from typing import Dict


def dicts(x, y):
    d: Dict[str, Tensor] = {"a": x, "b": y}
    d["c"] = x * y
    s = d["a"]
    if "b" in d:
        s = s + d["b"]
    n = len(d)
    for k, v in d.items():
        s = s + v
    vs = d.values()
    keys = d.keys()
    return s * n + torch.cat(vs), len(keys), d.get("z", x)
