def matmul_vec_batched(a, b):
    return torch.matmul(a, b)
