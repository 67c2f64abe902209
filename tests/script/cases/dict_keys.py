from typing import Dict, List


def dict_keys(x, key: int):
    d = {1: x, 2: x * 2.0}
    e: Dict[str, Tensor] = {}
    e["only"] = x
    s = x
    for k in d:
        s = s + d[k]
    if key not in d:
        s = s * 2.0
    d[key] = s
    first = d.pop(1)
    counts: List[int] = []
    counts.append(len(d))
    return s + first + e["only"], counts
