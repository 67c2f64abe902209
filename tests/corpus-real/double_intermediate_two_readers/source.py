def double_intermediate_two_readers(x, y, z):
    """A 0-dim float64 intermediate read by two float32 products. Inside a
    DifferentiableGraph PyTorch 1.13 sums their float32 gradients as they are, so e's gradient
    is 2^24 + 33 rounded to float32 (2^24 + 32); its eager engine would cast each to float64
    first (2^24 + 33), as jitscope's tape does (tests/runtime/test_autograd.c)."""
    e = torch.exp(z * 0.5)
    return x * e, (y * e).sum() * 3.0
