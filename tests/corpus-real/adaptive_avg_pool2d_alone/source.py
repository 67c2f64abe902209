def adaptive_avg_pool2d_alone(x):
    return torch._C._nn.adaptive_avg_pool2d(x, [2, 3])
