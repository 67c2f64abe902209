def matmul_batched_vec(a, b):
    return torch.matmul(torch.sigmoid(a), b)
