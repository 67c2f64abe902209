def cross_entropy_weighted(x, t, w):
    return (F.cross_entropy(x, t, w, reduction="sum", ignore_index=1),
            F.cross_entropy(x, t, reduction="none", ignore_index=2),
            F.cross_entropy(x, t, w))
