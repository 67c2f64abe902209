def silu_mul(x, y):
    return F.silu(x) * y
