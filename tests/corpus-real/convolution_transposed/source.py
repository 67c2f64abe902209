def convolution_transposed(x, w, b):
    """aten::_convolution with transposed=True, what torch.jit.trace records for
    nn.ConvTranspose2d."""
    return torch._convolution(x, w, b, [2, 1], [0, 1], [1, 1], True, [1, 0], 1, False, False,
                              True, True) ** 2
