# Calls of the file's other defs: prim::CallFunction of a Function constant named after the
# callee, defaults filled in at the call (a keyword argument, a callee that calls another).
def calls(x: Tensor, n: int):
    y = scaled(x, 2.0)
    z = clipped(y, limit=3.0) + scaled(x)
    return z, count_down(n)


def scaled(x: Tensor, s: float = 1.0):
    return x * s


def clipped(x: Tensor, limit: float, square: bool = False):
    if bool((x * x).sum() > limit):
        x = scaled(torch.tanh(x / limit), limit)
    if square:
        return x * x
    return x


def count_down(n: int):
    while n > 0:
        n -= 1
    return n
