# A tensor's dtype, device, requires_grad and is_cuda are prim:: reads, printed without a
# location as PyTorch prints them (shape and ndim work too: aten::size and aten::dim, which
# PyTorch locates inside its own definitions, so they are not in this case).
def tensor_properties(x: Tensor, y: Tensor):
    same = x.dtype == y.dtype
    return same, x.device, x.requires_grad, y.is_cuda
