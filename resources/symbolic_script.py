# Gradient formulas written in TorchScript (reference section 6, seed 003), compiled by
# engine/script/symbolic_script.c when a session starts into forward/backward pairs keyed by
# the op-table overload whose arguments the def's parameters match (a def is named after its
# op). Each def computes the op's result and whatever backward needs, defines the closure
# `backward(grad_output)` returning one gradient per parameter (None where there is none), and
# returns (result, backward). Node shapes follow the C formulas (engine/autodiff/formulas.c),
# so both give the same numbers; broadcasting ops record `_size_if_not_equal` as seed 000 does.
from typing import List, Optional


def add(self, other, alpha: float):
    result = torch.add(self, other, alpha=alpha)
    self_size = torch._size_if_not_equal(self.size(), result.size())
    other_size = torch._size_if_not_equal(other.size(), result.size())
    def backward(grad_output):
        grad_self = grad_output._grad_sum_to_size(self_size)
        grad_other = (grad_output * alpha)._grad_sum_to_size(other_size)
        return grad_self, grad_other, None
    return result, backward


def sub(self, other, alpha: float):
    result = torch.sub(self, other, alpha=alpha)
    self_size = torch._size_if_not_equal(self.size(), result.size())
    other_size = torch._size_if_not_equal(other.size(), result.size())
    def backward(grad_output):
        grad_self = grad_output._grad_sum_to_size(self_size)
        grad_other = (-grad_output * alpha)._grad_sum_to_size(other_size)
        return grad_self, grad_other, None
    return result, backward


def mul(self, other):
    result = self * other
    self_size = torch._size_if_not_equal(self.size(), result.size())
    other_size = torch._size_if_not_equal(other.size(), result.size())
    def backward(grad_output):
        grad_self = (grad_output * other)._grad_sum_to_size(self_size)
        grad_other = (grad_output * self)._grad_sum_to_size(other_size)
        return grad_self, grad_other
    return result, backward


def div(self, other):
    result = self / other
    self_size = torch._size_if_not_equal(self.size(), result.size())
    other_size = torch._size_if_not_equal(other.size(), result.size())
    def backward(grad_output):
        grad_self = (grad_output / other)._grad_sum_to_size(self_size)
        grad_other = ((-grad_output * self) / (other * other))._grad_sum_to_size(other_size)
        return grad_self, grad_other
    return result, backward


def neg(self):
    def backward(grad_output):
        return -grad_output
    return -self, backward


def sigmoid(self):
    result = self.sigmoid()
    def backward(grad_output):
        return (-result + 1) * result * grad_output
    return result, backward


def tanh(self):
    result = self.tanh()
    def backward(grad_output):
        return grad_output * (-(result * result) + 1)
    return result, backward


def relu(self):
    result = self.relu()
    def backward(grad_output):
        return grad_output * (result > 0).type_as(result)
    return result, backward


def exp(self):
    result = self.exp()
    def backward(grad_output):
        return grad_output * result
    return result, backward


def log(self):
    def backward(grad_output):
        return grad_output / self
    return self.log(), backward


def pow(self, exponent: float):
    def backward(grad_output):
        return grad_output * exponent * torch.pow(self, exponent - 1.0), None
    return torch.pow(self, exponent), backward


def mm(self, mat2):
    def backward(grad_output):
        grad_self = grad_output.mm(mat2.t())
        grad_mat2 = self.t().mm(grad_output)
        return grad_self, grad_mat2
    return self.mm(mat2), backward


def t(self):
    def backward(grad_output):
        return grad_output.t()
    return self.t(), backward


# Also prim::ConstantChunk's formula (its chunks and dim attributes as the arguments, its pieces
# as the list): the gradients of the pieces, zeros where one has none, concatenated.
def chunk(self, chunks: int, dim: int):
    result = torch.chunk(self, chunks, dim)
    def backward(grad_outputs: List[Tensor]):
        grad_self = torch.cat(grad_outputs, dim)
        return grad_self, None, None
    return result, backward


# The pieces' sizes along dim are recorded in the forward, so backward keeps no tensor alive.
# The Tensor[] gradient reaches the tensors through the prim::ListConstruct that built the list.
def cat(tensors: List[Tensor], dim: int):
    split_sizes: List[int] = []
    for tensor in tensors:
        split_sizes.append(tensor.size(dim))
    def backward(grad_output):
        grad_tensors = torch.split_with_sizes(grad_output, split_sizes, dim)
        return grad_tensors, None
    return torch.cat(tensors, dim), backward


def sum(self, dtype: Optional[int]):
    self_size = self.size()
    def backward(grad_output):
        return grad_output.expand(self_size), None
    return torch.sum(self, dtype=dtype), backward


def mean(self, dtype: Optional[int]):
    result = torch.mean(self, dtype=dtype)
    self_size = self.size()
    count = self.numel() / result.numel()
    def backward(grad_output):
        return grad_output.expand(self_size) / count, None
    return result, backward
