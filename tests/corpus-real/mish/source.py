def mish(x):
    return F.mish(x)
