def torch_norms(x, n, z, e, s):
    """torch.norm as a function (torch.functional.norm: a prim::CallFunction, four overloads):
    p 'fro' (its default) over every element, over two dims (frobenius_norm's sqrt(sum(x * x)),
    whose gradient is NaN at z's zero matrix, as PyTorch's) and one (the 2-norm, whose gradient
    is 0 there), keepdim, negative dims; a number p (2, 1, inf, 0.5, 3, None) with dims as a
    list, an int or None, and a dtype; n holds NaN and inf, e is empty, s is 0-dim."""
    inf = float("inf")
    return (torch.norm(x), torch.norm(x, 'fro'), torch.norm(x, dim=(0, 1)),
            torch.norm(x, p='fro', dim=[1, 2], keepdim=True), torch.norm(x, 'fro', 1),
            torch.norm(x, dim=(-1, 0)), torch.norm(x, p=1, dim=1), torch.norm(x, 2),
            torch.norm(x, inf, [0, 2]), torch.norm(x, None, -1, True), torch.norm(x, 0.5, dim=[1]),
            torch.norm(x, 2.5, [0, 1], dtype=torch.float64), torch.norm(x, p=2, dim=(0, 2)),
            torch.norm(n, dim=(0, 1)), torch.norm(n, 3.0, 0), torch.norm(z, dim=(1, 2)),
            torch.norm(z, 'fro', -1), torch.norm(e), torch.norm(e, dim=(0, 1)), torch.norm(s),
            torch.norm(s, 1))
