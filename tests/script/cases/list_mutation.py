from typing import List


def list_mutation(x, n: int):
    xs: List[Tensor] = []
    before = len(xs)
    for i in range(n):
        xs.append(x * float(i + 1))
    after = len(xs)
    xs[0] = xs[-1] - x
    total = xs[0]
    for t in xs:
        total = total + t
    return total * float(before + after), len(xs)
