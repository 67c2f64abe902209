def classification_losses(x, raw, t, w, s, q):
    """binary_cross_entropy (probabilities 0 and 1 included, a weight), soft_margin_loss (a
    float32 exp overflow: the loss is inf, its gradient NaN), kl_div (zero targets: their
    gradient is NaN; log_target; batchmean), multilabel_soft_margin_loss."""
    p = torch.sigmoid(raw)
    return (F.binary_cross_entropy(p, t), F.binary_cross_entropy(p, t, w, reduction="sum"),
            F.soft_margin_loss(x, s, reduction="none"), F.soft_margin_loss(x * 0.5, s),
            F.kl_div(F.log_softmax(x, 1), q, reduction="batchmean"),
            F.kl_div(F.log_softmax(x, 1), q, reduction="none"),
            F.kl_div(x.log_softmax(1), t.log_softmax(1), reduction="sum", log_target=True),
            F.multilabel_soft_margin_loss(x, t), F.multilabel_soft_margin_loss(x, t, w, reduction="none"))
