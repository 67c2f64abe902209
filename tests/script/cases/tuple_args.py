# A homogeneous tuple where the schema wants a list becomes a prim::ListConstruct of its
# elements (PyTorch's tryConvertToType, then LowerSimpleTuples), and torch._C._nn reaches the
# same aten ops as torch.
def tuple_args(x: Tensor, n: int):
    t = (n, 2)
    return torch._C._nn.adaptive_avg_pool2d(x, (1, n)), x.view((2, 3)), x.permute(t)
