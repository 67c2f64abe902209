def mse_losses(x, t):
    return F.mse_loss(x, t) + torch._C._nn.mse_loss(x, t, 2) * torch._C._nn.mse_loss(x, t, 0)
