def hardtanh(x):
    return F.hardtanh(x, -0.5, 1.5)
