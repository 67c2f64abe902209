def regression_losses(x, y):
    """smooth_l1_loss and huber_loss in every reduction, beta 0 included (its gradient is -1 at
    a zero difference there); ties, NaN and an infinite difference."""
    return (F.smooth_l1_loss(x, y), F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
            F.smooth_l1_loss(x, y, beta=0.0, reduction="none") * 2.0,
            F.huber_loss(x, y, delta=0.7, reduction="none"), F.huber_loss(x, y) * 3.0)
