def nll_losses(x, t, w):
    lp = F.log_softmax(x, 1)
    return (F.nll_loss(lp, t), F.nll_loss(lp, t, w, reduction="sum"),
            F.nll_loss(x, t, w, ignore_index=0, reduction="none"), F.nll_loss(x, t, w, ignore_index=0))
