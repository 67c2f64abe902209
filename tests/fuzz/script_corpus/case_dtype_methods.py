# Tensor methods that cast: x.float(), x.long(), x.int(), x.double(), x.half() are aten::to
# with the dtype's code located at the call, as PyTorch emits them.
def dtype_methods(x: Tensor, m: Tensor):
    a = x.float()
    b = m.long() + m.int()
    c = x.double() * x.float()
    return a, b, c, x.half()
