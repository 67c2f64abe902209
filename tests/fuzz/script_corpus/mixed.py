import torch
from typing import List, Optional, Tuple

def mul_forward(self, other):
    def backward(grad_output):
        grad_self = (grad_output * other).sum_to_size(self.size())
        grad_other = (grad_output * self).sum_to_size(other.size())
        return grad_self, grad_other
    return self * other, backward

def g(x, n: int):
    s = x
    for i in range(n):
        if i > 2:
            s = s * 2
        else:
            s = s + 1
    while n < 10:
        n += 1
    return s, n

def h(x, t: Tuple[Tensor, Tensor], flag: bool, o: Optional[int]):
    a, b = t
    for e in t:
        x = x * e
    y = a if flag else b
    if o is None:
        raise ValueError("o is none")
    assert flag and n > 3, "bad"
    return [x, y], t[0], -1, (x, y)
