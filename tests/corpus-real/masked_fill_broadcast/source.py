def masked_fill_broadcast(x, y):
    return x.masked_fill(y > 0, 2.0) * y
