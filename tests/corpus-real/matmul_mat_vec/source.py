def matmul_mat_vec(a, b):
    return torch.matmul(a, b) * 2.0
