def slice_clamped(x):
    return torch.sigmoid(x[-3:, 2:100]) * x[0, :4]
