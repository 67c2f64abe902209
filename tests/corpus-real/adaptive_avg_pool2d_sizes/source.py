def adaptive_avg_pool2d_sizes(x):
    return (torch._C._nn.adaptive_avg_pool2d(x, [1, 1]) * 2.0,
            torch._C._nn.adaptive_avg_pool2d(torch.tanh(x), [3, 4]))
