def convolution_alone(x, w):
    return torch._convolution(x, w, None, [1], [1], [1], False, [0], 1, False, False, True, True)
