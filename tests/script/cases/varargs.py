# Trailing positional values that fill a last list argument (PyTorch's varargs lists): ints
# for an int[] (permute, zeros) and tensors for a Tensor[] (broadcast_tensors).
def varargs(x: Tensor, y: Tensor):
    a, b = torch.broadcast_tensors(x, y)
    return a * b, x.permute(1, 0), torch.zeros(2, 3)
