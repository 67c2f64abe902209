from typing import List, Tuple


def tuples_lists(x, pair: Tuple[Tensor, Tensor], scale: float):
    a, b = pair
    first = pair[0]
    last = pair[-1]
    both = torch.cat([a, b, x], 1)
    for t in pair:
        x = x + t * scale
    p, q = x.chunk(2, 1)
    return both, (first, last), p + q
