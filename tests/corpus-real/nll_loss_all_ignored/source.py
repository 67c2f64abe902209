def nll_loss_all_ignored(x, t):
    return F.nll_loss(x, t, ignore_index=1), F.nll_loss(x, t, ignore_index=1, reduction="sum")
