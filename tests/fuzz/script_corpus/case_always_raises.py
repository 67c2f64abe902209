# A function whose every path raises returns an uninitialized None; statements after the raise
# are never emitted.
def always_raises(x: Tensor, n: int):
    if n > 0:
        raise ValueError("positive")
    else:
        y = x + 1
        raise RuntimeError("not positive")
    return y
