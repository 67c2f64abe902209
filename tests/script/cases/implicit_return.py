# Falling off the end returns None (its constant located at the function's name, as PyTorch
# prints it); a bare return in a branch; a loop whose result nothing reads stays, as PyTorch's
# dead code elimination keeps loops with work in their body, and an empty one goes.
def implicit_return(x: Tensor, n: int):
    for i in range(n):
        x = x + 1
    for j in range(n):
        pass
    if n > 3:
        return
