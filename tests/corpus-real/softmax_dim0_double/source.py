def softmax_dim0_double(x):
    s = torch.softmax(x, 0, dtype=torch.float64)
    return s * s
