def matmul_batched_broadcast(a, b):
    return torch.matmul(a, b)
