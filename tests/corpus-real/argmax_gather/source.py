def argmax_gather(x):
    return x * x.argmax(1, keepdim=True) + x.argmax() + x.argmax(0)
