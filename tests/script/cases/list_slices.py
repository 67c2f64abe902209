from typing import List


def list_slices(xs: List[Tensor], n: int):
    a = xs[1:]
    b = xs[::2]
    c = a + b
    d = xs[-2:] + xs[:n]
    e = list(xs)
    e.extend(d)
    e.insert(0, xs[0])
    e.reverse()
    last = e.pop()
    return torch.cat(c + d), len(e), last
