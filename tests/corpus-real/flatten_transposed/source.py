def flatten_transposed(x, w):
    return x.transpose(0, 1).flatten() * w
