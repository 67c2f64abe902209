def conv_same_asymmetric(x, w, b, x1, w1):
    """padding='same' with an odd total padding: PyTorch pads the extra one after the input."""
    return (F.conv2d(x, w, b, padding='same', dilation=[1, 3]) * x.sum(),
            F.conv1d(x1, w1, None, 1, 'same', 1, 2) ** 2)
