def softmax_last(x, w):
    return F.softmax(x, dim=-1) * w
