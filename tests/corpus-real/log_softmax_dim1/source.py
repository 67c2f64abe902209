def log_softmax_dim1(x):
    return F.log_softmax(x, 1)
