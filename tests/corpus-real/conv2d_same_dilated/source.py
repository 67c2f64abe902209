def conv2d_same_dilated(x, w, b):
    """padding='same' with an even kernel: dilation 2 keeps the padding symmetric."""
    return torch.tanh(F.conv2d(x, w, b, padding='same', dilation=2))
