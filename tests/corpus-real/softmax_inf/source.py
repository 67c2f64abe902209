def softmax_inf(x, w):
    return torch.softmax(x, -1) * w
