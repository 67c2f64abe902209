def l1_losses(x, t):
    return F.l1_loss(x, t), F.l1_loss(x, t, reduction="sum"), F.l1_loss(x, t, reduction="none")
