# ** between Python numbers is a float (aten::pow.int, .int_float, ...), as in attention's
# head_dim ** -0.5.
def number_pow(x: Tensor, head_dim: int, p: float):
    return x * head_dim ** -0.5, head_dim ** 2, p ** head_dim, p ** p
