def amax_amin(x):
    return x.amax(1) * x.amin([0, 1], keepdim=True).sum() + x.amax(-1, True).sum() * x[:, 0]
