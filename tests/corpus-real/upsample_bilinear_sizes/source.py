def upsample_bilinear_sizes(x):
    """F.interpolate(mode='bilinear'): to a size without and with align_corners, down by a
    scale factor, and the plain overload with scales that disagree with its output_size."""
    a = torch._C._nn.upsample_bilinear2d(x, [5, 7], False, None)
    b = torch._C._nn.upsample_bilinear2d(x, [4, 3], True, None)
    c = torch._C._nn.upsample_bilinear2d(x, None, False, [0.6, 1.3])
    d = torch._C._nn.upsample_bilinear2d(x, [6, 8], False, 2.5, 1.5)
    return a, b * 3.0, c + 1.0, d
