def layer_norm_computed_shape(x, w, b):
    """normalized_shape computed from the input ([x.size(-1)], as transformer blocks write it),
    not a constant list: its gradient needs only the list's length."""
    y = F.layer_norm(x, [x.size(-1)], w, b)
    return F.layer_norm(torch.tanh(y), x.shape[1:]) * 2.0
