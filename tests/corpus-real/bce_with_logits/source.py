def bce_with_logits(x, t, w, p):
    return (F.binary_cross_entropy_with_logits(x, t),
            F.binary_cross_entropy_with_logits(x, t, w, reduction="sum", pos_weight=p),
            F.binary_cross_entropy_with_logits(x, t, pos_weight=p, reduction="none"),
            F.binary_cross_entropy_with_logits(x, t, w, reduction="none"))
