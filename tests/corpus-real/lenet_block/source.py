def lenet_block(x, w, b, fc_w, fc_b):
    y = torch.max_pool2d(F.relu(torch.conv2d(x, w, b, 1, 1)), 2)
    return F.linear(torch.flatten(y, 1), fc_w, fc_b)
