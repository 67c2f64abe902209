def matmul_vec_vec(a, b):
    return torch.matmul(a, b)
