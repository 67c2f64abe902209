# The math module: sqrt, exp and log of numbers (floats), and its constants, as in
# scores / math.sqrt(d_k); math.sqrt(4) folds to 2.
def math_module(x: Tensor, d: int, f: float):
    return (x / math.sqrt(d), math.sqrt(f), math.log(f), math.exp(d), math.pi * f, math.inf,
            math.sqrt(4), math.e, math.nan)
