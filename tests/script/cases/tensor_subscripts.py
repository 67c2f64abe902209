# Tensor subscripts as PyTorch emits them: an int selects (aten::select, the dim goes away), a
# slice slices (aten::slice, None for a missing bound, step 1), items left to right; and `//`.
def subscripts(x: Tensor, i: int, n: int):
    a = x[0]
    b = x[1:3]
    c = x[:, i]
    d = x[1:, :2]
    e = x[-1]
    f = x[n, -2]
    g = x[1:-1:2]
    h = x[i, 2:][0]
    return a, b, c, d, e, f, g, h, n // 2
