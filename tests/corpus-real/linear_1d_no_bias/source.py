def linear_1d_no_bias(x, w):
    return F.linear(torch.tanh(x), w)
