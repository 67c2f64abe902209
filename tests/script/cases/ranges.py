# range with a start, an end and a step, as PyTorch emits it: aten::__range_length for the
# trip count, aten::__derive_index for the loop variable.
def ranges(x: Tensor, a: int, b: int):
    for i in range(a, b):
        x = x + i
    for j in range(1, b, 2):
        x = x * j
    for k in range(b, a, -3):
        x = x - k
    return x
