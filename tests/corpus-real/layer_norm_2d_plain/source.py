def layer_norm_2d_plain(x):
    return torch.sigmoid(F.layer_norm(x, [3, 4], eps=0.1)) * x
