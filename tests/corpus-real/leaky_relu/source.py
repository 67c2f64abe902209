def leaky_relu(x):
    return F.leaky_relu(x, 0.25)
