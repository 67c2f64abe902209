from typing import Dict


def dicts(x, y):
    d: Dict[str, Tensor] = {"a": x, "b": y}
    d["c"] = x * y, d.get("z", x)
