# PyTorch's cleanup after emission folds nodes of immutable types whose inputs are constants
# (the folded constants print without a source range) and inlines an if on a constant; lists
# stay as they are written.
def constant_folding(x: Tensor, n: int, s: str):
    scale = 1.0 / 8
    k = 2 * 3.5 + n + 2 ** 3
    m = int(3.7) * 2
    if 3 > 2:
        y = x * scale
    else:
        y = x
    sizes = [2, 3]
    return (y.clamp_min(float("nan")) * float("-inf") + k + m, float(s),
            x.view(sizes), float(" 1e-3"))

