#!/usr/bin/python3
"""Writes tests/corpus-real: functions real models use, scripted and run by PyTorch 1.13
(Debian's python3-torch) with the legacy executor, in the layout of the shared corpus
(source.py, graph.ir, case-K/case.json with in*.npy, out*.npy, grad*.npy; INDEX).

Run:  /usr/bin/python3 tests/corpus-real/gen_corpus_real.py
Every number here is PyTorch's."""
import inspect
import json
import os
import shutil
import textwrap

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def silu_mul(x, y):
    return F.silu(x) * y


def mish(x):
    return F.mish(x)


def hardtanh(x):
    return F.hardtanh(x, -0.5, 1.5)


def hardsigmoid(x):
    return F.hardsigmoid(x)


def leaky_relu(x):
    return F.leaky_relu(x, 0.25)


def softplus(x):
    return F.softplus(x, 2.0, 1.0)


def elu(x):
    return F.elu(x, 0.5)


def gated_silu(x, w):
    return torch.tanh(F.silu(x + w)) * torch.sigmoid(w)


def linear_3d(x, w, b):
    return F.linear(x, w, b)


def linear_1d_no_bias(x, w):
    return F.linear(torch.tanh(x), w)


def matmul_vec_vec(a, b):
    return torch.matmul(a, b)


def matmul_mat_vec(a, b):
    return torch.matmul(a, b) * 2.0


def matmul_vec_batched(a, b):
    return torch.matmul(a, b)


def matmul_batched_broadcast(a, b):
    return torch.matmul(a, b)


def matmul_batched_vec(a, b):
    return torch.matmul(torch.sigmoid(a), b)


def bmm(a, b):
    return torch.bmm(a, b)


def softmax_last(x, w):
    return F.softmax(x, dim=-1) * w


def log_softmax_dim1(x):
    return F.log_softmax(x, 1)


def softmax_dim0_double(x):
    s = torch.softmax(x, 0, dtype=torch.float64)
    return s * s


def log_softmax_scaled(x, w):
    return torch.log_softmax(x * w, dim=-2)


def softmax_inf(x, w):
    return torch.softmax(x, -1) * w


def with_infinities(inputs):
    """Row 0 is all -inf (softmax gives NaN), row 1 has one -inf (its share is 0)."""
    x = inputs[0].clone()
    x[0, :] = -float("inf")
    x[1, 0] = -float("inf")
    return [x] + inputs[1:]


def mean_all(x):
    return x.mean() * x


def mean_dims(x):
    return torch.tanh(x.mean(dim=[0, -1], keepdim=True)) * x + x.mean(1).sum()


def mean_double(x):
    return torch.sigmoid(torch.mean(x, [1], dtype=torch.float64))


def permute_flatten(x, w):
    return torch.tanh(x.permute(2, 0, -2)).contiguous().flatten(1) * w


def flatten_transposed(x, w):
    return x.transpose(0, 1).flatten() * w


def slice_select(x):
    return x[:, 1:-1:2] * x.select(1, -1).unsqueeze(1)


def slice_clamped(x):
    return torch.sigmoid(x[-3:, 2:100]) * x[0, :4]


def var_std(x):
    return x.var(1, keepdim=True) * x + x.std() + x.var(unbiased=False) + x.std([0], False)


def std_dims(x):
    return torch.std(x, [0, 2]) * torch.var(x, -1, True, True).sum()


def layer_norm(x, w, b):
    return F.layer_norm(x, [4], w, b) * torch.tanh(x)


def layer_norm_2d_plain(x):
    return torch.sigmoid(F.layer_norm(x, [3, 4], eps=0.1)) * x


def gelu_both(x):
    return F.gelu(x) * torch.sigmoid(x) + F.gelu(x, approximate="tanh")


def dropout_eval(x):
    return F.dropout(torch.tanh(x), 0.3, False) * x


def stack_dims(x, y):
    return torch.stack([x, torch.tanh(y), x * y], 1) * torch.stack([y, x, y], -1).sum(-1, keepdim=True)


def amax_amin(x):
    return x.amax(1) * x.amin([0, 1], keepdim=True).sum() + x.amax(-1, True).sum() * x[:, 0]


def argmax_gather(x):
    return x * x.argmax(1, keepdim=True) + x.argmax() + x.argmax(0)


def logsumexp_dims(x):
    return torch.logsumexp(x, 1) * 2.0 + torch.logsumexp(x, [0, 1], keepdim=True).sum()


def with_ties(inputs):
    """Ties for amax / amin: their gradient is shared."""
    x = inputs[0].clone()
    x[0, 1] = x[0, 2] = x[0].max()
    x[2, 0] = x[2, 3] = x.min()
    return [x]


def with_minus_inf_row(inputs):
    """logsumexp of a row of -inf is -inf."""
    x = inputs[0].clone()
    x[1, :] = -float("inf")
    return [x]


def index_select_rows(x, i):
    return torch.index_select(x, 0, i) * torch.index_select(x, 1, i[:3]).sum()


def embedding_padded(i, w):
    return torch.embedding(w, i, 2) * torch.tanh(F.embedding(i, w).sum(-1, keepdim=True))


def cumsum_dims(x):
    return torch.cumsum(x, 1) * torch.tanh(x), torch.cumsum(x * x, 0, dtype=torch.float64)


def mse_losses(x, t):
    return F.mse_loss(x, t) + torch._C._nn.mse_loss(x, t, 2) * torch._C._nn.mse_loss(x, t, 0)


def conv2d_strided(x, w, b):
    return torch.tanh(torch.conv2d(x, w, b, 2, 1))


def conv2d_groups_dilated(x, w):
    return torch.conv2d(x, w, None, [1, 2], [2, 1], 2, 2) * x.sum()


def conv1d_padded(x, w, b):
    return torch.conv1d(x, w, b, 1, 2, 1, 1) ** 2


def max_pool2d_ceil(x):
    return torch.max_pool2d(x, [3, 2], [2, 2], [1, 0], [1, 1], True) * torch.tanh(x).sum()


def max_pool2d_dilated(x):
    return torch.max_pool2d(x, 2, [], 0, 2) ** 2


def avg_pool2d_padded(x):
    return torch.tanh(F.avg_pool2d(x, 3, 2, 1)), F.avg_pool2d(x, [2, 3], [1, 2], [1, 1], True,
                                                               False)


def adaptive_avg_pool2d_sizes(x):
    return (torch._C._nn.adaptive_avg_pool2d(x, [1, 1]) * 2.0,
            torch._C._nn.adaptive_avg_pool2d(torch.tanh(x), [3, 4]))


def lenet_block(x, w, b, fc_w, fc_b):
    y = torch.max_pool2d(F.relu(torch.conv2d(x, w, b, 1, 1)), 2)
    return F.linear(torch.flatten(y, 1), fc_w, fc_b)


def batch_norm_eval(x, w, b, running_mean, running_var):
    return F.batch_norm(x, running_mean, running_var, w, b, False, 0.1, 1e-3) * torch.tanh(x)


def batch_norm_train(x, w, b):
    return torch.tanh(torch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False))


def group_norm_affine(x, w, b):
    return torch.group_norm(x, 2, w, b, 1e-5, False) * torch.tanh(x) + torch.group_norm(x, 4)


def convolution_traced_form(x, w, b, w1):
    """aten::_convolution, what torch.jit.trace records for nn.Conv1d / nn.Conv2d."""
    y = torch._convolution(x, w, b, [2, 1], [1, 0], [1, 1], False, [0, 0], 1, False, False,
                           True, True)
    z = torch._convolution(torch.flatten(x, 2), w1, None, [1], [2], [2], False, [0], 3, False,
                           False, True, True)
    return y, torch.tanh(z)


def functional_pool_norm(x, w):
    """F.max_pool2d (stride None and given), F.adaptive_avg_pool2d and F.group_norm: calls of
    torch.nn.functional's Python functions."""
    y = F.adaptive_avg_pool2d(F.max_pool2d(x, 2), (1, 1)) * F.group_norm(x, 2, w).sum()
    return y + F.max_pool2d(x, 3, 1, 1).sum()


# One op alone is too small for a DifferentiableGraph: its gradient comes from the eager tape.
def conv2d_alone(x, w, b):
    return torch.conv2d(x, w, b, 1, 1, 1, 1)


def max_pool2d_alone(x):
    return torch.max_pool2d(x, 2, [], 0, 1, True)


def avg_pool2d_alone(x):
    return F.avg_pool2d(x, 3, 2, 1)


def adaptive_avg_pool2d_alone(x):
    return torch._C._nn.adaptive_avg_pool2d(x, [2, 3])


def group_norm_alone(x, w, b):
    return torch.group_norm(x, 2, w, b, 1e-5, False)


def batch_norm_alone(x, w, b):
    return torch.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False)


def convolution_alone(x, w):
    return torch._convolution(x, w, None, [1], [1], [1], False, [0], 1, False, False, True, True)


def indices_at(k, high, shape):
    """Input k becomes int64 indices in [0, high), repeated ones included."""
    def change(inputs):
        gen = torch.Generator().manual_seed(5)
        return inputs[:k] + [torch.randint(0, high, shape, generator=gen)] + inputs[k + 1:]
    return change


def frozen(*ks):
    """Inputs ks take no gradient: PyTorch has none for loss weights."""
    def change(inputs):
        return inputs
    change.frozen = set(ks)
    return change


def probabilities_at(k):
    """Input k becomes numbers in [0, 1) (binary targets)."""
    def change(inputs):
        gen = torch.Generator().manual_seed(7)
        return inputs[:k] + [torch.rand(inputs[k].shape, generator=gen)] + inputs[k + 1:]
    return change


def classifier_cross_entropy(x, w, b, t):
    return F.cross_entropy(F.linear(x, w, b), t)


def cross_entropy_weighted(x, t, w):
    return (F.cross_entropy(x, t, w, reduction="sum", ignore_index=1),
            F.cross_entropy(x, t, reduction="none", ignore_index=2),
            F.cross_entropy(x, t, w))


def cross_entropy_nd(x, t):
    return F.cross_entropy(x, t, reduction="none"), F.cross_entropy(x, t, ignore_index=0)


def cross_entropy_1d(x, t):
    return F.cross_entropy(x, t) * torch.tanh(x)


def nll_losses(x, t, w):
    lp = F.log_softmax(x, 1)
    return (F.nll_loss(lp, t), F.nll_loss(lp, t, w, reduction="sum"),
            F.nll_loss(x, t, w, ignore_index=0, reduction="none"), F.nll_loss(x, t, w, ignore_index=0))


def nll_loss_all_ignored(x, t):
    return F.nll_loss(x, t, ignore_index=1), F.nll_loss(x, t, ignore_index=1, reduction="sum")


def l1_losses(x, t):
    return F.l1_loss(x, t), F.l1_loss(x, t, reduction="sum"), F.l1_loss(x, t, reduction="none")


def bce_with_logits(x, t, w, p):
    return (F.binary_cross_entropy_with_logits(x, t),
            F.binary_cross_entropy_with_logits(x, t, w, reduction="sum", pos_weight=p),
            F.binary_cross_entropy_with_logits(x, t, pos_weight=p, reduction="none"),
            F.binary_cross_entropy_with_logits(x, t, w, reduction="none"))


def ones_at(k):
    """Input k becomes all ones (every target ignored with ignore_index 1)."""
    def change(inputs):
        return inputs[:k] + [torch.ones(inputs[k].shape, dtype=torch.int64)] + inputs[k + 1:]
    return change


def masked_fill_mask(x, v):
    return x.masked_fill(x > 0.5, -1.5) * x, torch.tanh(x).masked_fill(x < 0, v)


def masked_fill_broadcast(x, y):
    return x.masked_fill(y > 0, 2.0) * y


def gather_dims(x, i):
    return torch.gather(x, 1, i) * 2.0, x.gather(0, i) * torch.tanh(x[:, :2])


def scatter_add_dim1(x, i, s):
    return x.scatter_add(1, i, s) * torch.tanh(x)


def baddbmm_scaled(s, a, b):
    return torch.baddbmm(s, a, b, beta=0.5, alpha=2.0), torch.baddbmm(s, a, b) * s


def clamp_min_max(x):
    return (x.clamp_min(-0.5), x.clamp_max(1.0) * 2.0, torch.clamp_min(x, float("nan")),
            torch.clamp_max(x, float("inf")))


def with_nan_inf(inputs):
    """NaN and both infinities among ordinary numbers."""
    x = inputs[0].clone()
    x[0, 0] = float("nan")
    x[0, 1] = float("inf")
    x[1, 0] = -float("inf")
    return [x] + inputs[1:]


def factories(x):
    return (x + torch.zeros(3, 4) + torch.ones([3, 4]) * x + torch.full([3, 4], 2.5) * x,
            torch.ones([2, 3], dtype=torch.float64),
            torch.arange(4) * x, torch.arange(0, 8, 2, dtype=torch.float32) + x,
            torch.arange(1.0, 2.0, 0.25) * x, torch.full([2], 3), torch.arange(-3, 4, 3),
            torch.zeros_like(x, dtype=torch.float64) + torch.ones_like(x))


def to_dtypes(x, y):
    d = x.to(torch.float64)
    return (d * 2.0, y.to(d) * d, x.to("cpu") * x, (x * 3).to(torch.int64),
            x.to(torch.float32, copy=True) * y)


def detach_broadcast(x, y):
    a, b = torch.broadcast_tensors(x, y)
    return x.detach() * x, a * b + torch.tanh(a), x * float(x.sum()) + int(x.sum())


def positive_at(k):
    """Input k becomes positive (a running variance)."""
    def change(inputs):
        return inputs[:k] + [inputs[k].abs() + 0.5] + inputs[k + 1:]
    return change


# Lists and dicts (issue 11): annotations resolve from this module's globals.
from typing import Dict, List  # noqa: E402


def dict_of_tensors(x, y):
    d: Dict[str, torch.Tensor] = {"x": x, "y": torch.tanh(y)}
    d["xy"] = x * y
    d["x"] = d["x"] * 2.0
    total = torch.zeros_like(x)
    for k in d:
        total = total * 0.5 + d[k]
    if "y" in d:
        total = total + d.get("y", x) * float(len(d))
    missing = d.get("z", y)
    first = d.pop("x")
    return total + missing, first * torch.cat(d.values()).sum()


def dict_items_weighted(x, w):
    d: Dict[int, torch.Tensor] = {}
    for i in range(3):
        d[i] = x * float(i + 1)
    d[1] = d[1] + w
    total = torch.zeros_like(x)
    for k, v in d.items():
        total = total + v * float(k + 1)
    names: List[str] = ["a", "b"]
    if "b" in names and 5 not in d:
        total = total * 2.0
    return total, d[2] * w


def list_slice_cat(x, y, z):
    xs = [x, torch.tanh(y), z * 2.0, x * y]
    head = xs[:2]
    tail = xs[-2:]
    parts = head + tail[::-1] + xs[::2]
    parts.insert(1, z)
    parts.extend(xs[1:3])
    last = parts.pop()
    parts.reverse()
    rest = list(parts[1:])
    return torch.cat(rest, 0) * 1.5, torch.stack(xs[1:], 1).sum(1) + last


FUNCTIONS = [
    (silu_mul, [(4, 5), (4, 5)]),
    (mish, [(3, 6)]),
    (hardtanh, [(3, 6)]),
    (hardsigmoid, [(3, 6)]),
    (leaky_relu, [(3, 6)]),
    (softplus, [(3, 6)]),
    (elu, [(3, 6)]),
    (gated_silu, [(4, 1), (1, 5)]),
    (linear_3d, [(2, 3, 4), (5, 4), (5,)]),
    (linear_1d_no_bias, [(4,), (3, 4)]),
    (matmul_vec_vec, [(5,), (5,)]),
    (matmul_mat_vec, [(3, 5), (5,)]),
    (matmul_vec_batched, [(4,), (2, 4, 3)]),
    (matmul_batched_broadcast, [(2, 1, 3, 4), (3, 4, 5)]),
    (matmul_batched_vec, [(2, 3, 4), (4,)]),
    (bmm, [(2, 3, 4), (2, 4, 5)]),
    (softmax_last, [(3, 5), (5,)]),
    (log_softmax_dim1, [(2, 4, 3)]),
    (softmax_dim0_double, [(4, 3)]),
    (log_softmax_scaled, [(2, 4, 3), (4, 1)]),
    (softmax_inf, [(3, 4), (1, 4)], with_infinities),
    (mean_all, [(3, 4)]),
    (mean_dims, [(2, 3, 4)]),
    (mean_double, [(3, 4)]),
    (permute_flatten, [(2, 3, 4), (4, 6)]),
    (flatten_transposed, [(2, 3), (6,)]),
    (slice_select, [(4, 6)]),
    (slice_clamped, [(4, 6)]),
    (var_std, [(3, 4)]),
    (std_dims, [(2, 3, 4)]),
    (layer_norm, [(2, 3, 4), (4,), (4,)]),
    (layer_norm_2d_plain, [(2, 3, 4)]),
    (gelu_both, [(3, 6)]),
    (dropout_eval, [(3, 4)]),
    (stack_dims, [(2, 3), (2, 3)]),
    (amax_amin, [(3, 4)], with_ties),
    (argmax_gather, [(3, 4)]),
    (logsumexp_dims, [(3, 4)], with_minus_inf_row),
    (index_select_rows, [(4, 5), (6,)], indices_at(1, 4, (6,))),
    (embedding_padded, [(2, 3), (5, 4)], indices_at(0, 5, (2, 3))),
    (cumsum_dims, [(3, 4)]),
    (mse_losses, [(3, 4), (3, 4)]),
    (classifier_cross_entropy, [(4, 5), (3, 5), (3,), (4,)], indices_at(3, 3, (4,))),
    (cross_entropy_weighted, [(6, 4), (6,), (4,)], indices_at(1, 4, (6,)), frozen(2)),
    (cross_entropy_nd, [(2, 3, 4, 2), (2, 4, 2)], indices_at(1, 3, (2, 4, 2))),
    (cross_entropy_1d, [(5,), ()], indices_at(1, 5, ())),
    (nll_losses, [(5, 3), (5,), (3,)], indices_at(1, 3, (5,)), frozen(2)),
    (nll_loss_all_ignored, [(3, 4), (3,)], ones_at(1)),
    (l1_losses, [(3, 4), (1, 4)]),
    (bce_with_logits, [(3, 4), (3, 4), (4,), (3, 4)], probabilities_at(1), frozen(2, 3)),
    (masked_fill_mask, [(3, 4), ()]),
    (masked_fill_broadcast, [(1, 4), (3, 4)]),
    (gather_dims, [(3, 4), (3, 2)], indices_at(1, 3, (3, 2))),
    (scatter_add_dim1, [(3, 4), (3, 5), (3, 5)], indices_at(1, 4, (3, 5))),
    (baddbmm_scaled, [(3, 1, 5), (3, 2, 4), (3, 4, 5)]),
    (clamp_min_max, [(3, 4)], with_nan_inf),
    (factories, [(3, 4)]),
    (to_dtypes, [(3, 4), (3, 4)]),
    (detach_broadcast, [(3, 1), (1, 4)]),
    (conv2d_strided, [(2, 3, 7, 6), (4, 3, 3, 3), (4,)]),
    (conv2d_groups_dilated, [(2, 4, 8, 7), (6, 2, 3, 2)]),
    (conv1d_padded, [(2, 3, 9), (5, 3, 4), (5,)]),
    (max_pool2d_ceil, [(2, 3, 6, 5)]),
    (max_pool2d_dilated, [(1, 2, 7, 7)]),
    (avg_pool2d_padded, [(2, 2, 7, 8)]),
    (adaptive_avg_pool2d_sizes, [(2, 3, 7, 10)]),
    (lenet_block, [(2, 1, 8, 8), (4, 1, 3, 3), (4,), (10, 64), (10,)]),
    (batch_norm_eval, [(3, 4, 5, 2), (4,), (4,), (4,), (4,)], positive_at(4), frozen(3, 4)),
    (batch_norm_train, [(4, 3, 5), (3,), (3,)]),
    (group_norm_affine, [(2, 4, 3, 3), (4,), (4,)]),
    (convolution_traced_form, [(2, 3, 5, 4), (2, 3, 3, 2), (2,), (6, 1, 3)]),
    (functional_pool_norm, [(2, 4, 6, 6), (4,)]),
    (conv2d_alone, [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    (max_pool2d_alone, [(2, 3, 5, 5)]),
    (avg_pool2d_alone, [(2, 3, 5, 5)]),
    (adaptive_avg_pool2d_alone, [(2, 3, 5, 7)]),
    (group_norm_alone, [(2, 4, 3, 3), (4,), (4,)]),
    (batch_norm_alone, [(3, 2, 4), (2,), (2,)]),
    (convolution_alone, [(2, 3, 6), (2, 3, 2)]),
    (dict_of_tensors, [(3, 4), (3, 4)]),
    (dict_items_weighted, [(2, 3), (2, 3)]),
    (list_slice_cat, [(2, 3), (2, 3), (2, 3)]),
]


# Random ops, after the other functions (their graphs' source lines stay put): PyTorch's run
# follows torch.manual_seed(N) and the case records N (jitscope run --seed N); fewer than 16
# elements and 16 or more take different normal_ paths.
def dropout_train_small(x):
    return F.dropout(x, 0.3, True) * 2


def dropout_train_large(x, w):
    return F.dropout(torch.tanh(x), 0.25, True) * w


def dropout_train_double(x):
    return torch.sigmoid(F.dropout(x, 0.6, True)) * x


def rand_mix_small(x):
    return x * torch.rand_like(x) + torch.tanh(x) * torch.randn_like(x)


def rand_mix_large(x):
    return x * torch.rand_like(x) + torch.tanh(x) * torch.randn_like(x) + torch.rand_like(x)


def rand_mix_double(x, y):
    return (x * torch.randn_like(x)).sum() + torch.rand_like(y) * torch.randn_like(y) * y


def random_factories(x):
    y = torch.randn([3, 4], dtype=torch.float64) + torch.rand([4], dtype=torch.float64)
    z = x * torch.rand([3, 4]) + torch.bernoulli(torch.sigmoid(x)) + torch.bernoulli(x, 0.25)
    return z * torch.randn([5, 7]).sum(), y * torch.randn([20], dtype=torch.float64).sum()


def seeded(n):
    """PyTorch's recorded run starts with torch.manual_seed(n)."""
    def change(inputs):
        return inputs
    change.seed = n
    return change


def doubles(inputs):
    """Every input becomes float64."""
    return [x.double() for x in inputs]


FUNCTIONS += [
    (dropout_train_small, [(3, 4)], seeded(3)),
    (dropout_train_large, [(5, 7), (7,)], seeded(4)),
    (dropout_train_double, [(5, 7)], doubles, seeded(5)),
    (rand_mix_small, [(3, 4)], seeded(6)),
    (rand_mix_large, [(5, 7)], seeded(7)),
    (rand_mix_double, [(3, 5), (4, 6)], doubles, seeded(8)),
    (random_factories, [(3, 4)], seeded(9)),
]


def conv2d_same_dilated(x, w, b):
    """padding='same' with an even kernel: dilation 2 keeps the padding symmetric."""
    return torch.tanh(F.conv2d(x, w, b, padding='same', dilation=2))


def conv1d_same_valid(x, w, w1):
    return F.conv1d(x, w, None, 1, 'same') * 2.0, F.conv1d(x, w1, padding='valid', stride=2)


FUNCTIONS += [
    (conv2d_same_dilated, [(2, 3, 7, 6), (4, 3, 2, 4), (4,)]),
    (conv1d_same_valid, [(2, 3, 9), (4, 3, 5), (2, 3, 3)]),
]


def conv_same_asymmetric(x, w, b, x1, w1):
    """padding='same' with an odd total padding: PyTorch pads the extra one after the input."""
    return (F.conv2d(x, w, b, padding='same', dilation=[1, 3]) * x.sum(),
            F.conv1d(x1, w1, None, 1, 'same', 1, 2) ** 2)


FUNCTIONS += [
    (conv_same_asymmetric, [(2, 3, 6, 7), (4, 3, 4, 2), (4,), (3, 4, 8), (2, 2, 4)]),
]


def conv_transpose_strided(x, w, b, x1, w1):
    """Transposed convolutions: stride, padding, output_padding, groups and dilation."""
    return (torch.tanh(F.conv_transpose2d(x, w, b, [2, 3], [1, 0], [1, 2], 2, [1, 2])),
            F.conv_transpose1d(x1, w1, None, 2, 1, 1, 1, 3) * 2.0)


def convolution_transposed(x, w, b):
    """aten::_convolution with transposed=True, what torch.jit.trace records for
    nn.ConvTranspose2d."""
    return torch._convolution(x, w, b, [2, 1], [0, 1], [1, 1], True, [1, 0], 1, False, False,
                              True, True) ** 2


FUNCTIONS += [
    (conv_transpose_strided, [(2, 4, 3, 4), (4, 3, 3, 2), (6,), (2, 3, 5), (3, 2, 3)]),
    (convolution_transposed, [(2, 3, 4, 3), (3, 2, 3, 3), (2,)]),
]


def zero_dim_double(x, z):
    """A float32 tensor with a 0-dim float64 one: PyTorch keeps float32 (0-dim tensors rank
    below dimensioned ones in type promotion), fused or not."""
    return torch.sigmoid(x * x + z) * x


def zero_dim_double_grad(x, z):
    """The 0-dim float64 input's gradient is float64, as PyTorch's engine casts it (its value,
    a float32 sum of 2s, is exact, so float32 summation order cannot show)."""
    return (x + z) * 2.0


def last_double(inputs):
    """The last input becomes a 0-dim float64 tensor."""
    return inputs[:-1] + [inputs[-1].reshape([]).double()]


FUNCTIONS += [
    (zero_dim_double, [(3, 4), (1,)], last_double, frozen(1)),
    (zero_dim_double_grad, [(3, 4), (1,)], last_double),
]


def cat_chunk_mul(x, y):
    """cat of two tensors cut back in two by chunk, inside one DifferentiableGraph: each
    tensor's gradient comes back through the list as a piece of split_with_sizes."""
    c = torch.cat([torch.tanh(x), y * 2.0], 1)
    a, b = c.chunk(2, 1)
    return a * b * torch.sigmoid(c).sum(1, keepdim=True)


def cat_repeated_stack(x, y, w, v):
    """cat with one tensor twice and one that takes no gradient (w), stack, and
    broadcast_tensors: their Tensor[] gradients reach every tensor the lists were built from."""
    t = torch.tanh(x)
    c = torch.cat([t, w, t * y], 0)
    s = torch.stack([x, y], 2)
    a, b = torch.broadcast_tensors(x, v)
    return torch.sigmoid(c) * 2.0, s.exp().sum(2) * a + b * torch.tanh(b)


def split_unbind_chain(x, y):
    """split and unbind inside a DifferentiableGraph: the pieces' gradients become the list's
    gradient, zeros for the piece (u1) that gets none."""
    a = torch.tanh(x) * y
    p, q, r = a.split([1, 2, 1], 1)
    u0, u1, u2 = torch.unbind(torch.sigmoid(q) + p, 0)
    return u0 * u2 * torch.exp(r).sum(), torch.exp(a).sum()


def split_list_escapes(x, y):
    """A list that split makes and len and indexing read: it cannot stay in a
    DifferentiableGraph (no gradient crosses a Tensor[]), so the group around it dissolves."""
    a = torch.tanh(x) * y
    b = torch.sigmoid(a) * torch.exp(a)
    parts = b.split(2, 1)
    n = len(parts)
    return parts[0] * float(n) + parts[1], (a * b).sum()


FUNCTIONS += [
    (cat_chunk_mul, [(3, 4), (3, 4)]),
    (cat_repeated_stack, [(3, 4), (3, 4), (2, 4), (1, 4)], frozen(2)),
    (split_unbind_chain, [(3, 4), (3, 4)]),
    (split_list_escapes, [(3, 4), (3, 4)]),
]


def double_intermediate_two_readers(x, y, z):
    """A 0-dim float64 intermediate read by two float32 products. Inside a
    DifferentiableGraph PyTorch 1.13 sums their float32 gradients as they are, so e's gradient
    is 2^24 + 33 rounded to float32 (2^24 + 32); its eager engine would cast each to float64
    first (2^24 + 33), as jitscope's tape does (tests/runtime/test_autograd.c)."""
    e = torch.exp(z * 0.5)
    return x * e, (y * e).sum() * 3.0


def sums_exact_in_any_order(inputs):
    """x: one element 2^24, the rest 0; y: ones but one 0 (its gradient sum, 3 * 11, is odd);
    so the float32 sums are exact whatever their order and only their float32 total rounds."""
    x, y, z = inputs
    x = torch.zeros_like(x)
    x[0, 0] = 2.0 ** 24
    y = torch.ones_like(y)
    y[0, 0] = 0.0
    return [x, y, z.reshape([]).double()]


FUNCTIONS += [
    (double_intermediate_two_readers, [(3, 4), (3, 4), (1,)], sums_exact_in_any_order),
]


def loop_break_continue(x):
    """break and continue in a range loop and a while loop (issue 12): the loops PyTorch's
    frontend rewrites with exit flags, the counted one into a while loop with a counter."""
    for i in range(6):
        if i == 4:
            break
        if i == 1:
            continue
        x = x * 1.5 + i
    k = 0
    while k < 10:
        k += 1
        if k % 3 == 0:
            continue
        if bool(x.sum() > 110.0):
            break
        x = x + 0.25 * k
    return x, x * k


def nested_loop_exits(x, w):
    """break leaves only the inner loop; continue skips the rest of the outer body."""
    out = x
    for i in range(3):
        for j in range(4):
            if j > i:
                break
            out = out + w * j
        if i == 1:
            continue
        out = torch.sigmoid(out)
    return out


def early_return_in_loop(x, y):
    """A return inside a loop: the loop carries whether it returned and what."""
    if bool(x.sum() > 100.0):
        return x * 2.0
    for i in range(5):
        y = torch.tanh(y + x)
        if bool(y.sum() + 3.0 > 0.0):
            return y * i
    return y - x


def early_return_not_taken(x, y):
    """The same function where no return inside the loop is taken."""
    for i in range(3):
        y = torch.tanh(y * 0.5 + x)
        if bool(y.sum() > 1000.0):
            return y * i
    return y - x


def dict_value_grad(x, y):
    """Tensors read back from a dict feed a DifferentiableGraph: their gradients must reach x
    and y (the requires-grad analysis had dict values as not requiring grad and dropped them)."""
    d: Dict[str, torch.Tensor] = {"a": x, "b": y}
    t = d["a"]
    return torch.tanh(t * 2.0 + d["b"]) * t - t


def scale_shift(x, s: float = 2.0):
    return x * s + 1.0


def soft_clip(x, limit: float):
    if bool((x * x).sum() > limit):
        return torch.tanh(x / limit) * limit
    return x


def calls_between_defs(x, y):
    """Calls of other functions of the same file: PyTorch prints prim::CallFunction of a
    Function constant (a default filled in at the second call); the helpers follow in
    source.py, and graph.ir holds the calls (it runs only from source.py, see meson.build)."""
    z = scale_shift(x) + scale_shift(y, 0.5)
    return soft_clip(z * y, 3.0), soft_clip(x, 1000.0)


calls_between_defs.helpers = [scale_shift, soft_clip]


def max_min_reductions(x, y):
    """max()/min() of every element and along a dim (values and the first extreme's index, as
    classification heads use them); y is rounded so that its rows hold ties."""
    v, i = torch.max(x, 1)
    w, j = y.min(0, keepdim=True)
    return x.max() * v + y.min(), w * 2.0, i, j


def mobile_activations(x, w):
    """MobileNet's activations: relu6 and hardswish (F.* calls, inlined), NaN-free inputs that
    cross every branch (below -3, between, above 3 and 6)."""
    return F.hardswish(x * 2.0) * F.relu6(x * 3.0 + w)


def causal_scores(q, k):
    """Attention scores under a causal mask (tril of ones) with the upper triangle halved
    (triu above the diagonal), and each row's argmin."""
    s = torch.matmul(q, k.t())
    s = s * torch.tril(torch.ones_like(s)) + torch.triu(s, 1) * 0.5
    return torch.softmax(s, 1), s.argmin(1)


def rounded_second(inputs):
    return [inputs[0], torch.round(inputs[1])]


FUNCTIONS += [
    (dict_value_grad, [(3, 4), (3, 4)]),
    (loop_break_continue, [(3, 4)]),
    (nested_loop_exits, [(3, 4), (4,)]),
    (early_return_in_loop, [(3, 4), (3, 4)]),
    (early_return_not_taken, [(3, 4), (3, 4)]),
    (calls_between_defs, [(3, 4), (3, 4)]),
    (max_min_reductions, [(3, 5), (4, 3)], rounded_second),
    (mobile_activations, [(4, 6), (6,)]),
    (causal_scores, [(5, 3), (5, 3)]),
]



def advanced_index(x, i, j, m, e):
    """x[idx] as TorchScript prints it (aten::index of a Tensor?[]): rows with a repeated and a
    negative index, columns after a None, two index tensors broadcast together, a bool mask,
    an empty index; x holds NaN and inf, whose gradient is still 1 where they are read."""
    a = x[i] * 2.0
    b = x[:, i].sum(0)
    c = x[j, i]
    d = torch.tanh(x[m])
    return a, b, c, d, x[e] + 1.0


def index_nonadjacent(y, i, j, k, m):
    """Index tensors apart (y[i, :, j]): their broadcast dims go first; a 2-D index in the
    middle dim; a mask over the two leading dims."""
    a = y[i, :, j]
    b = y[:, k]
    c = y[m]
    return a * 3.0, torch.exp(b), c * c


def index_put_values(x, v, w, i, u, m):
    """torch.index_put (a Tensor[] for the Tensor?[]): rows written (values broadcast from a
    row), rows accumulated (a repeated index adds twice), a mask filled with a 0-dim value."""
    a = torch.index_put(x, [u], v)
    b = torch.index_put(x, [i], torch.tanh(v) * 2.0, True)
    c = torch.index_put(x * 0.5, [m], w)
    return a, b * b, c


def with_index_tensors(*specs):
    """Inputs at the given positions become the given int64 or bool tensors (indices, masks,
    given as nested lists or as tensors); the others keep their values."""
    def change(inputs):
        out = list(inputs)
        for k, value in specs:
            out[k] = value if isinstance(value, torch.Tensor) else torch.tensor(value)
        return out
    return change


def nan_inf_at(points):
    """Input 0 gets the given values (NaN, infinities) at the given places."""
    def change(inputs):
        x = inputs[0].clone()
        for (r, c), v in points:
            x[r, c] = v
        return [x] + inputs[1:]
    return change


FUNCTIONS += [
    (advanced_index, [(4, 5), (4,), (2, 1), (4, 5), (0,)],
     with_index_tensors((1, [0, -1, 2, 0]), (2, [[1], [3]]),
                        (3, [[True, False, False, True, False], [False] * 5,
                             [True, True, False, False, True], [False, False, False, False, True]]),
                        (4, torch.zeros(0, dtype=torch.long))),
     nan_inf_at([((0, 1), float("nan")), ((3, 2), float("inf")), ((2, 4), -float("inf"))])),
    (index_nonadjacent, [(2, 3, 4), (3,), (1,), (2, 2), (2, 3)],
     with_index_tensors((1, [1, 0, -1]), (2, [3]), (3, [[2, 0], [-1, 2]]),
                        (4, [[True, False, True], [False, True, True]]))),
    (index_put_values, [(4, 3), (3,), (), (3,), (2,), (4, 3)],
     with_index_tensors((3, [2, 0, 2]), (4, [3, -4]),
                        (5, [[True, False, False], [False] * 3, [False, True, True],
                             [True, True, True]]))),
]



def sort_topk(x, y):
    """sort, topk and argsort: NaN sorts as the largest (last ascending, first descending and
    in topk's largest), infinities as numbers; the values' gradient goes back where they came
    from. Ties only in y, sorted stably (stable=True; PyTorch's default sort keeps their order
    too along dims of at most 16 elements)."""
    a, i = torch.sort(x, 1)
    b, j = torch.sort(x, dim=0, descending=True)
    c, k = torch.topk(x, 2)
    d, m = torch.topk(x, 3, dim=-2, largest=False)
    e, n = y.sort(stable=True, descending=True)
    f, p = torch.sort(y, -1)
    return (a * 2.0, i, b, j, c, k, torch.tanh(d), m, e * e, n, f, p, torch.argsort(x, 1, True),
            torch.argsort(y, stable=True, dim=0))


def nan_inf_and_ties(inputs):
    """x gets NaN, inf and -inf (no two equal elements); y is rounded, so its rows tie."""
    x = inputs[0].clone()
    x[0, 1] = x[2, 4] = float("nan")
    x[1, 3] = float("inf")
    x[3, 0] = x[0, 5] = -float("inf")
    return [x, torch.round(inputs[1])]


FUNCTIONS += [
    (sort_topk, [(4, 6), (3, 5)], nan_inf_and_ties),
]


def upsample_nearest_scaled(x):
    """What F.interpolate(mode='nearest') calls: scale factors, one not an integer (1.5: the
    float index rule), and 2019's traced form with an output size."""
    a = torch._C._nn.upsample_nearest2d(x, None, [2.0, 1.5])
    return a * 2.0, torch._C._nn.upsample_nearest2d(torch.tanh(x), [3, 7])


def upsample_bilinear_sizes(x):
    """F.interpolate(mode='bilinear'): to a size without and with align_corners, down by a
    scale factor, and the plain overload with scales that disagree with its output_size."""
    a = torch._C._nn.upsample_bilinear2d(x, [5, 7], False, None)
    b = torch._C._nn.upsample_bilinear2d(x, [4, 3], True, None)
    c = torch._C._nn.upsample_bilinear2d(x, None, False, [0.6, 1.3])
    d = torch._C._nn.upsample_bilinear2d(x, [6, 8], False, 2.5, 1.5)
    return a, b * 3.0, c + 1.0, d


FUNCTIONS += [
    (upsample_nearest_scaled, [(2, 3, 3, 4)]),
    (upsample_bilinear_sizes, [(2, 2, 4, 5)], doubles),
]


def prelu_channels(x, w, x1, w1):
    """PReLU with a weight per channel (dim 1) and with one weight for a 1-D input."""
    return torch.prelu(x, w) * 2.0, torch.prelu(x1, w1)


def glu_halves(x):
    """GLU along the last dim (its default) and along dim 1."""
    return torch._C._nn.glu(x, -1), torch._C._nn.glu(torch.tanh(x), 1)


FUNCTIONS += [
    (prelu_channels, [(2, 3, 4), (3,), (5,), (1,)]),
    (glu_halves, [(2, 4, 6)]),
]


def interpolate_forms(x):
    """F.interpolate as models call it: by a scale factor (nearest), to a size pair (bilinear),
    to one size for both dims, by a scale pair with align_corners, and recomputing the size."""
    a = F.interpolate(x, scale_factor=2.0)
    b = F.interpolate(x, size=(5, 7), mode='bilinear', align_corners=False)
    c = F.interpolate(x, size=6)
    d = F.interpolate(x, scale_factor=(1.5, 0.75), mode='bilinear', align_corners=True)
    e = F.interpolate(x, scale_factor=1.7, mode='bilinear', recompute_scale_factor=True)
    return a, b * 2.0, c, d, e


FUNCTIONS += [
    (interpolate_forms, [(2, 3, 4, 5)]),
]


def instance_norm_stats(x, w, b, rm, rv, x1):
    """InstanceNorm2d as models call it: affine, tracking running statistics (updated in place
    and returned after), and plain on a 1-D signal."""
    y = F.instance_norm(x, rm, rv, w, b, True, 0.2)
    return y, rm * 1.0, rv * 1.0, F.instance_norm(x1)


def instance_norm_eval(x, w, b, rm, rv):
    """use_input_stats=False: the running statistics normalize (InstanceNorm in eval mode)."""
    return F.instance_norm(x, rm, rv, w, b, False)


FUNCTIONS += [
    (instance_norm_stats, [(2, 3, 4, 5), (3,), (3,), (3,), (3,), (2, 4, 6)], positive_at(4),
     frozen(3, 4)),
    (instance_norm_eval, [(2, 3, 4, 5), (3,), (3,), (3,), (3,)], positive_at(4), frozen(3, 4)),
]


def pixel_shuffles(x, y, z):
    """Sub-pixel convolution's rearrangement (ESPCN, super-resolution) and its inverse, on a
    batch, without a batch dim, and in five dims."""
    return (F.pixel_shuffle(x, 2) * 2.0, F.pixel_unshuffle(torch.tanh(y), 3),
            F.pixel_shuffle(z, 2))


FUNCTIONS += [
    (pixel_shuffles, [(2, 8, 3, 2), (2, 6, 3), (2, 1, 4, 2, 1)]),
]



def roll_repeat(x, y, z, e):
    """torch.roll along listed dims (shifts past the size, negative shifts and dims) and along
    the flattened tensor, Tensor.repeat adding a dim, on NaN and infinities, a 0-dim and an
    empty tensor; products with other inputs make every gradient place distinct."""
    a = torch.roll(x, [5, -7], [-2, 1]) * y
    b = torch.roll(x, 3) * y
    c = torch.tanh(x.repeat([2, 1, 2])) * z
    s = x.sum()
    return a, b, c, torch.roll(s, 2), s.repeat([2, 3]), torch.roll(e, -1, 0), e.repeat(2, 3)


def narrow_pad(x, y):
    """Tensor.narrow from the end (start -2), at the end (length 0) and along dim -1; F.pad in
    mode 'constant' (the default value, 0.5, NaN; negative pads crop) and
    torch.constant_pad_nd, on NaN and infinities."""
    a = x.narrow(1, -2, 2) * y.narrow(-1, 0, 2)
    b = x.narrow(0, 3, 0)
    c = torch.tanh(F.pad(x, [1, 2, -1, 0], mode='constant', value=0.5))
    d = F.pad(x, [1, 1]) * F.pad(y, [0, 2])
    e = torch.constant_pad_nd(torch.tanh(x), [2, -1], -1.0) * torch.constant_pad_nd(y, [-1, 2])
    f = F.pad(x, [0, 1, 2, 0], value=float('nan'))
    return a, b, c, d, e, f


FUNCTIONS += [
    (roll_repeat, [(3, 4), (3, 4), (2, 3, 8), (0, 3)], with_nan_inf),
    (narrow_pad, [(3, 4), (3, 4)], with_nan_inf),
]

def square_prod(a, b, y, v, z, w, e, s):
    """torch.square and torch.prod over every element and along a dim (negative, keepdim, a
    dtype), with PyTorch 1.13's prod_backward: a and b hold no zero (g * result / self; b's
    inf gives NaN at itself), y one zero (the exact products of the others), v one zero and
    an inf in another row (every slice then takes the products of the others, so the inf's
    gradient is finite), z two zeros in a row (zeros over every element), w two zeros and a
    NaN (zeros over every element though the product is NaN), e is empty along dim 1, s is
    0-dim (its gradient is g)."""
    return (torch.square(a), a.prod(), torch.prod(a, 1), torch.prod(a, -1, True),
            a.prod(dtype=torch.float64), torch.square(b) + torch.prod(b, 0), torch.prod(b, 1),
            y.prod(), torch.prod(y, 0, True), torch.prod(v, 1), z.prod(), torch.prod(z, -1),
            w.prod(), e.prod(), torch.prod(e, 1), torch.prod(e, 0, True), s.prod(),
            torch.prod(s, 0), torch.square(s))


def cumprod_zeros(x, y, z, e, s):
    """torch.cumprod along dims (negative, a dtype), with PyTorch 1.13's cumprod_backward: x
    without zeros but with an inf (reversed_cumsum(g * out) / x), y one zero per row at the
    start, middle and end, z two zeros in a row with a NaN after the second and an inf between
    them, e is empty along dim 1, s is 0-dim."""
    return (torch.cumprod(x, 1), torch.cumprod(x, -2), torch.cumprod(x, 0, dtype=torch.float64),
            torch.cumprod(y, 1), torch.cumprod(y, 0), torch.cumprod(z, -1), torch.cumprod(e, 1),
            torch.cumprod(e, 0), torch.cumprod(s, 0), torch.cumprod(s, -1))


def prod_inputs(inputs):
    """Scaled near 1 (long products stay finite); the zeros, infinities and NaN the docstrings
    name."""
    a, b, y, v, z, w, e, s = [x * 0.4 for x in inputs]
    b[1, 2] = float("inf")
    y[1, 3] = v[1, 3] = 0.0
    v[2, 0] = float("inf")
    z[0, 1] = z[0, 2] = 0.0
    w[1, 0] = w[0, 2] = 0.0
    w[1, 1] = float("nan")
    return [a, b, y, v, z, w, e, s]


def cumprod_inputs(inputs):
    x, y, z, e, s = [x * 0.4 for x in inputs]
    x[0, 2] = float("inf")
    y[0, 0] = y[1, 2] = y[2, 4] = 0.0
    z[1, 1] = z[1, 3] = 0.0
    z[1, 2] = float("inf")
    z[1, 4] = float("nan")
    return [x, y, z, e, s]


FUNCTIONS += [
    (square_prod, [(3, 4), (3, 4), (3, 4), (3, 4), (2, 3), (2, 3), (2, 0), ()], prod_inputs),
    (cumprod_zeros, [(3, 5), (3, 5), (2, 6), (2, 0), ()], cumprod_inputs),
]


def vector_norms(a, n, e, s):
    """torch.linalg.vector_norm for ord 2, 1, inf, -inf, 0, 3, 0.5, 1.5, -1 over every element
    and along dims (negative, keepdim, a dtype), with PyTorch 1.13's norm_backward: a's first
    row ties for the largest magnitude (inf's gradient shared), its last row is zeros (a zero
    2-norm's gradient is 0; ord below 1 skips the zeros); n holds NaN and inf, e is empty
    along dim 1, s is 0-dim."""
    inf = float("inf")
    return (torch.linalg.vector_norm(a), torch.linalg.vector_norm(a, 1, [1]),
            torch.linalg.vector_norm(a, inf, [1], True), torch.linalg.vector_norm(a, -inf, -1),
            torch.linalg.vector_norm(a, 0), torch.linalg.vector_norm(a, 3.0, [0, 1]),
            torch.linalg.vector_norm(a, 0.5, 1), torch.linalg.vector_norm(a, 1.5, 1),
            torch.linalg.vector_norm(a, -1.0, 0), torch.linalg.vector_norm(a, 2.5, [-1]),
            torch.linalg.vector_norm(a, 2, [0], dtype=torch.float64),
            torch.linalg.vector_norm(n, 2, [1]), torch.linalg.vector_norm(n, inf, [0]),
            torch.linalg.vector_norm(e), torch.linalg.vector_norm(e, 2, [1]),
            torch.linalg.vector_norm(s, 1), torch.linalg.vector_norm(s, 2, [0], True))


def norm_inputs(inputs):
    a, n, e, s = inputs
    a = a * 0.4
    a[0] = torch.tensor([2.0, 0.5, -2.0, 1.0])
    a[2] = 0.0
    n = n.clone()
    n[0, 1] = float("nan")
    n[1, 2] = float("inf")
    return [a, n, e, s]


FUNCTIONS += [
    (vector_norms, [(3, 4), (2, 3), (2, 0), ()], norm_inputs),
]

def tensor_norms(x, z, e):
    """Tensor.norm with a number p as scripts call it (aten::norm.Scalar, norm.ScalarOpt_dim):
    p 2, 1, inf, -inf, 0, 3 and -1.5 over every element and along dims (negative, keepdim),
    on NaN and infinities; z has a zero row (the 2-norm's gradient is 0 there) and ties for
    its largest magnitude; e is empty, whose norms are 0 for every p."""
    inf = float("inf")
    return (x.norm(), x.norm(p=1), x.norm(2, -1, True), x.norm(inf, [0]), z.norm(-inf, 1),
            z.norm(0), z.norm(3.0, [0, 1]), z.norm(inf), z.norm(2, 1), z.norm(-1.5, [1], True),
            e.norm(), e.norm(-1.5, [1]), e.norm(inf))


def tensor_norm_inputs(inputs):
    x, z, e = inputs
    x = x.clone()
    x[0, 1] = float("nan")
    x[2, 3] = float("inf")
    z = z * 0.4
    z[0] = torch.tensor([1.5, -1.5, 0.5])
    z[1] = 0.0
    return [x, z, e]


FUNCTIONS += [
    (tensor_norms, [(3, 4), (3, 3), (2, 0, 3)], tensor_norm_inputs),
]

def cumsum_infinite_grad(x, y):
    """cumsum under an infinite gradient: its reversed cumulative sum is inf where PyTorch's is
    (a gradient written as sum(g) - cumsum(g) + g gives NaN there)."""
    return torch.cumsum(x, 0) * y, torch.cumsum(x, 1) * 2.0


def infinite_row(inputs):
    """y's middle row is inf."""
    y = inputs[1].clone()
    y[1, 0] = float("inf")
    return [inputs[0], y]


FUNCTIONS += [
    (cumsum_infinite_grad, [(3, 4), (3, 1)], infinite_row, frozen(1)),
]

def special_value_grads(x, a, b):
    """Gradients where PyTorch's backward picks a branch by a comparison: elu's scale and
    leaky_relu's slope at NaN and +inf (PyTorch's scalar loop), xlogy's log(other) where self is
    0, and 0 there when other is 0 or below."""
    return F.elu(x, 0.5) * 2.0, F.leaky_relu(x, 0.2) * 3.0, torch.xlogy(a, b)


def special_values(inputs):
    """x: NaN, both infinities, signed zeros and ordinary numbers; xlogy's self zero beside
    every kind of other."""
    x = torch.tensor([[float("nan"), float("inf"), -float("inf"), 0.0],
                      [-0.0, 1.5, -2.0, 0.5]])
    a = torch.tensor([[0.0, 0.0, 0.0, 1.5], [2.0, 0.0, -1.0, 0.0]])
    b = torch.tensor([[2.0, 0.0, -1.0, float("nan")], [0.0, float("inf"), 3.0, -2.0]])
    return [x, a, b]


FUNCTIONS += [
    (special_value_grads, [(2, 4), (2, 4), (2, 4)], special_values),
]

def layer_norm_computed_shape(x, w, b):
    """normalized_shape computed from the input ([x.size(-1)], as transformer blocks write it),
    not a constant list: its gradient needs only the list's length."""
    y = F.layer_norm(x, [x.size(-1)], w, b)
    return F.layer_norm(torch.tanh(y), x.shape[1:]) * 2.0


FUNCTIONS += [
    (layer_norm_computed_shape, [(2, 3, 5), (5,), (5,)]),
]

def shrinks_fmax_fmin(x, y):
    """hardshrink passes a NaN, softshrink makes it 0; fmax and fmin skip NaN, ties give self."""
    return (torch.hardshrink(x, 0.5), F.softshrink(x, 0.25) * 2.0, F.hardshrink(x * 2.0),
            torch.fmax(x, y), torch.fmin(y, x) * 3.0)


def shrink_inputs(inputs):
    """x: NaN, infinities, signed zeros, both bounds of lambd exactly; y: NaN where x is not,
    ties with x (-0 against 0 too)."""
    x = torch.tensor([[float("nan"), float("inf"), -float("inf"), 0.5, -0.5],
                      [0.25, -0.25, -0.0, 1.5, -2.0],
                      [0.1, 0.7, -0.7, 3.0, -0.3]])
    y = torch.tensor([[1.0, float("nan"), 2.0, 0.5, float("nan")],
                      [0.25, 1.0, 0.0, -1.5, float("nan")],
                      [0.3, 0.2, -1.0, 3.0, -0.3]])
    return [x, y]


def activations_functional(x, y):
    """F.* activations PyTorch 1.13 scripts as calls of torch.nn.functional: celu, selu,
    softsign, tanhshrink, rrelu in evaluation, normalize."""
    return (F.celu(x, 0.5), F.celu(x), F.selu(x), F.softsign(x) * 2.0, F.tanhshrink(x),
            F.rrelu(x, 0.1, 0.3), F.normalize(y, dim=1), F.normalize(y, p=1.0, dim=0) * 3.0)


def activation_inputs(inputs):
    """x: NaN and infinities among ordinary numbers; y: a zero row (normalize's eps)."""
    x = inputs[0].clone()
    x[0, 0] = float("nan")
    x[0, 1] = float("inf")
    x[1, 0] = -float("inf")
    y = inputs[1].clone()
    y[1] = 0.0
    return [x, y]


FUNCTIONS += [
    (shrinks_fmax_fmin, [(3, 5), (3, 5)], shrink_inputs),
    (activations_functional, [(3, 4), (3, 4)], activation_inputs),
]

def regression_losses(x, y):
    """smooth_l1_loss and huber_loss in every reduction, beta 0 included (its gradient is -1 at
    a zero difference there); ties, NaN and an infinite difference."""
    return (F.smooth_l1_loss(x, y), F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"),
            F.smooth_l1_loss(x, y, beta=0.0, reduction="none") * 2.0,
            F.huber_loss(x, y, delta=0.7, reduction="none"), F.huber_loss(x, y) * 3.0)


def regression_inputs(inputs):
    """y equals x at two places, is NaN at one, x is inf at one; |x - y| at beta and delta."""
    x, y = inputs[0].clone(), inputs[1].clone()
    y[0, 0] = x[0, 0]
    y[1, 2] = x[1, 2]
    y[2, 1] = float("nan")
    x[3, 3] = float("inf")
    x[0, 1] = y[0, 1] + 0.5
    x[0, 2] = y[0, 2] - 0.7
    return [x, y]


def classification_losses(x, raw, t, w, s, q):
    """binary_cross_entropy (probabilities 0 and 1 included, a weight), soft_margin_loss (a
    float32 exp overflow: the loss is inf, its gradient NaN), kl_div (zero targets: their
    gradient is NaN; log_target; batchmean), multilabel_soft_margin_loss."""
    p = torch.sigmoid(raw)
    return (F.binary_cross_entropy(p, t), F.binary_cross_entropy(p, t, w, reduction="sum"),
            F.soft_margin_loss(x, s, reduction="none"), F.soft_margin_loss(x * 0.5, s),
            F.kl_div(F.log_softmax(x, 1), q, reduction="batchmean"),
            F.kl_div(F.log_softmax(x, 1), q, reduction="none"),
            F.kl_div(x.log_softmax(1), t.log_softmax(1), reduction="sum", log_target=True),
            F.multilabel_soft_margin_loss(x, t), F.multilabel_soft_margin_loss(x, t, w, reduction="none"))


def classification_inputs(inputs):
    """raw: +-inf (probabilities 1 and 0); t: probabilities; s: signs; q: rows of probabilities
    with zeros; x: one element far out (exp(-x s) overflows a float32)."""
    x, raw, t, w, s, q = inputs
    x = x.clone()
    x[0, 0] = 100.0
    raw = raw.clone()
    raw[0, 1] = float("inf")
    raw[1, 1] = -float("inf")
    gen = torch.Generator().manual_seed(5)
    t = torch.rand(t.shape, generator=gen)
    w = torch.rand(w.shape, generator=gen) + 0.5
    s = torch.where(torch.rand(s.shape, generator=gen) > 0.5, 1.0, -1.0)
    s[0, 0] = -1.0
    q = torch.rand(q.shape, generator=gen)
    q[0, :2] = 0.0
    q[2, 3] = 0.0
    q = q / q.sum(1, keepdim=True)
    return [x, raw, t, w, s, q]


FUNCTIONS += [
    (regression_losses, [(4, 5), (4, 5)], regression_inputs),
    (classification_losses, [(4, 5), (4, 5), (4, 5), (5,), (4, 5), (4, 5)],
     classification_inputs, frozen(3, 4)),
]

def cross_entropy_smoothed(x, t, w, x1, t1):
    """cross_entropy with label_smoothing in every reduction, with class weights, an ignored
    target, [N, C, d] scores and a 1-D one."""
    return (F.cross_entropy(x, t, label_smoothing=0.1),
            F.cross_entropy(x, t, w, ignore_index=2, label_smoothing=0.25, reduction="none"),
            F.cross_entropy(x, t, w, ignore_index=2, label_smoothing=0.25),
            F.cross_entropy(x, t, label_smoothing=0.3, reduction="sum"),
            F.cross_entropy(x.unsqueeze(2) * x.unsqueeze(2), t.unsqueeze(1), label_smoothing=0.2),
            F.cross_entropy(x1, t1, label_smoothing=0.1))


FUNCTIONS += [
    (cross_entropy_smoothed, [(6, 4), (6,), (4,), (5,), ()],
     indices_at(1, 4, (6,)), indices_at(4, 5, ()), frozen(2)),
]

def rms_norm_pow(x, w):
    """An int exponent (x.pow(2), (1 - p) ** 2) beside a float one, in one differentiable graph:
    the symbolic_script formula written for a float exponent must not take the int ones."""
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    p = torch.sigmoid(y)
    return (1 - p) ** 2 * y + torch.pow(p, 2.5)


FUNCTIONS += [
    (rms_norm_pow, [(2, 3, 8), (8,)]),
]

def relu_alone_nan(x):
    """relu outside any DifferentiableGraph: PyTorch's autograd formula (threshold_backward)
    passes the gradient at NaN."""
    return F.relu(x)


def relu_in_graph_nan(x, y):
    """relu inside a DifferentiableGraph: its symbolic formula g * (result > 0) gives 0 at
    NaN."""
    return torch.relu(x * y + x) * y + y


FUNCTIONS += [
    (relu_alone_nan, [(2, 3)], with_nan_inf),
    (relu_in_graph_nan, [(2, 3), (2, 3)], with_nan_inf),
]

def pool1d_windows(x, n, b):
    """F.max_pool1d and F.avg_pool1d (and their aten forms) on [N, C, W] and [C, W]: ceil_mode,
    padding, dilation, stride None (an empty list), count_include_pad both ways,
    return_indices; n holds NaN, inf, a row of -inf and tied maxima; b has an empty batch."""
    m, i = F.max_pool1d(n, 2, 1, 1, return_indices=True)
    return (F.max_pool1d(x, 3, 2, 1, ceil_mode=True), F.max_pool1d(x, 2, dilation=2),
            torch.max_pool1d(n, [3], [2], [1], [1], False), m, i,
            F.avg_pool1d(x, 3, 2, 1, True, False), F.avg_pool1d(n, 2),
            torch.avg_pool1d(x, [4], [3], [2], True, True), F.max_pool1d(b, 2),
            F.avg_pool1d(b, 3, 1, 1))


def adaptive_pool1d(x, n, b):
    """F.adaptive_avg_pool1d and F.adaptive_max_pool1d: windows that overlap (7 -> 4), that
    repeat elements (3 -> 5), one window (PyTorch's mean), return_indices; n holds NaN, inf, a
    row of -inf and tied maxima; b has an empty batch."""
    m, i = F.adaptive_max_pool1d(n, 3, True)
    return (F.adaptive_avg_pool1d(x, 4), F.adaptive_avg_pool1d(x, 1),
            F.adaptive_avg_pool1d(x[:, :, :3], 5), F.adaptive_max_pool1d(x, 4),
            F.adaptive_max_pool1d(x[:, :, :3], 5), m, i, F.adaptive_avg_pool1d(n, 2),
            F.adaptive_max_pool1d(b, 2), F.adaptive_avg_pool1d(b, 3))


def pool_specials(inputs):
    """n: NaN, inf, a row of -inf and two equal maxima."""
    x, n, b = inputs
    n = n.clone()
    n[0, 1] = float("nan")
    n[1, 4] = float("inf")
    n[2] = float("-inf")
    n[3, 5] = 9.0
    n[3, 6] = 9.0
    return [x, n, b]


FUNCTIONS += [
    (pool1d_windows, [(2, 3, 7), (4, 8), (0, 3, 5)], pool_specials),
    (adaptive_pool1d, [(2, 3, 7), (4, 8), (0, 3, 5)], pool_specials),
]


def nan_logit_floor_divide(x, n, z, e):
    """torch.nan_to_num (defaults, given values, a posinf past float32's range), torch.logit
    without and with eps (0, 1, outside [0, 1], NaN, below eps), torch.floor_divide (floats by
    a tensor and a number: signs, a zero divisor; x takes no gradient, PyTorch has no
    derivative for it), torch.xlogy with a number on either side; e is empty."""
    return (torch.nan_to_num(n), torch.nan_to_num(n, 0.5, 1e300, -10.0),
            torch.nan_to_num(n, posinf=3.0), torch.logit(z), torch.logit(z, 0.2),
            torch.floor_divide(x, x.flip([0])), torch.floor_divide(x, -0.7),
            torch.floor_divide(x, 0.0), torch.xlogy(2.0, z), torch.xlogy(z, 3.0),
            torch.xlogy(0.0, z), torch.nan_to_num(e), torch.logit(e, 0.25))


def pointwise_specials(inputs):
    """n: NaN, inf and -inf; z: in (0, 1) with 0, 1, -0.5, NaN and 0.1 (below eps 0.2)."""
    x, n, z, e = inputs
    n = n.clone()
    n[0, 0] = float("nan")
    n[1, 1] = float("inf")
    n[2, 2] = float("-inf")
    z = torch.sigmoid(z)
    z[0] = torch.tensor([0.0, 1.0, -0.5, float("nan")])
    z[1, 0] = 0.1
    return [x, n, z, e]


FUNCTIONS += [
    (nan_logit_floor_divide, [(3, 4), (3, 4), (3, 4), (0, 3)], pointwise_specials, frozen(0)),
]


def distances(x, y, w, z):
    """F.cosine_similarity and F.pairwise_distance: dims 1, 0 and -1, broadcasting (along dim
    too), a zero row and a row whose norm is below eps (PyTorch clamps it in place under
    no_grad: its gradient passes as if unclamped), a NaN, p 2, 1, inf and 3, keepdim; z is an
    empty batch."""
    return (F.cosine_similarity(x, y), F.cosine_similarity(x, w, 0),
            F.cosine_similarity(x, y[:1], -1), F.cosine_similarity(x, w[:, :1], 1),
            F.pairwise_distance(x, y), F.pairwise_distance(x, w, 1.0, 1e-6, True),
            F.pairwise_distance(x, y, float("inf")), F.pairwise_distance(x, y, 3.0),
            F.cosine_similarity(z, z), F.pairwise_distance(z, z))


def distance_specials(inputs):
    """x: a zero row and a row of norm 1e-10; y: a NaN."""
    x, y, w, z = inputs
    x = x.clone()
    x[1] = 0.0
    x[2] = x[2] * 1e-10
    y = y.clone()
    y[3, 0] = float("nan")
    return [x, y, w, z]


FUNCTIONS += [
    (distances, [(4, 3), (4, 3), (1, 3), (0, 3)], distance_specials),
]


def pad_reflect(x, y, z, n, e):
    """F.pad in mode 'reflect' (aten::pad; gradient reflection_pad{1,2,3}d_backward): 1-D pads
    on a batched and an unbatched input, pads one short of the dim, negative pads, 2-D pads on
    a 4-D and a 3-D input, 3-D pads on a 4-D input; squared, so that every place of the
    gradient differs; n holds NaN and inf, e has no batch."""
    a = F.pad(x, [2, 4], mode='reflect')
    b = F.pad(x[0], [-1, 3], mode='reflect')
    c = F.pad(y, [1, 2, 2, 0], mode='reflect')
    d = F.pad(y[0], [0, 3, -1, 1])
    f = F.pad(z, [1, 0, 0, 1, 1, 1], mode='reflect')
    return (a * a, b * b, c * c, torch.tanh(d), f * f, F.pad(n, [2, 2], mode='reflect'),
            F.pad(e, [1, 1, 1, 1], mode='reflect'))


def pad_replicate(x, y, z, n, e):
    """F.pad in mode 'replicate' (gradient replication_pad{1,2,3}d_backward): pads larger than
    the dim, negative pads, 2-D pads on 3-D and 4-D inputs, 3-D pads on a 5-D input; n holds
    NaN and inf, e has no batch."""
    a = F.pad(x, [3, 7], mode='replicate')
    b = F.pad(x, [-2, 2], mode='replicate')
    c = F.pad(y, [2, -1, 0, 4], mode='replicate')
    d = F.pad(y[0], [1, 1, 1, 1], mode='replicate')
    f = F.pad(z, [1, 2, 0, 1, 2, 0], mode='replicate')
    return (a * a, b * b, c * c, d * d, f * f, F.pad(n, [1, 3], mode='replicate'),
            F.pad(e, [1, 1, 1, 1, 1, 1], mode='replicate'))


def pad_circular(x, y, z, n, e):
    """F.pad in mode 'circular' (_pad_circular's copies; the gradient adds the wrapped slices
    back): pads as large as the dim, negative pads on one side, 2-D pads with corners, 3-D
    pads; n holds NaN and inf, e is empty along the channels."""
    a = F.pad(x, [1, 3], mode='circular')
    b = F.pad(x, [-1, 2], mode='circular')
    c = F.pad(y, [2, 1, 3, 3], mode='circular')
    d = F.pad(y, [3, -1, -1, 1], mode='circular')
    f = F.pad(z, [1, 0, 0, 1, 2, 1], mode='circular')
    return (a * a, b * b, c * c, d * d, f * f, F.pad(n, [2, 1], mode='circular'),
            F.pad(e, [1, 1], mode='circular'))


def with_nan_inf_input(inputs):
    """Input 3 (n) holds NaN, inf and -inf."""
    n = inputs[3].clone()
    n[0, 0, 1] = float("nan")
    n[0, 1, 0] = float("inf")
    n[0, 1, 3] = -float("inf")
    return inputs[:3] + [n] + inputs[4:]


FUNCTIONS += [
    (pad_reflect, [(2, 3, 5), (2, 2, 3, 4), (2, 2, 3, 4), (1, 2, 4), (0, 2, 3, 3)],
     with_nan_inf_input),
    (pad_replicate, [(2, 3, 5), (1, 2, 3, 4), (1, 2, 2, 3, 2), (1, 2, 4), (0, 2, 2, 3, 2)],
     with_nan_inf_input),
    (pad_circular, [(2, 3, 4), (1, 2, 3, 4), (1, 1, 3, 2, 3), (1, 2, 4), (1, 0, 3)],
     with_nan_inf_input),
]


def torch_norms(x, n, z, e, s):
    """torch.norm as a function (torch.functional.norm: a prim::CallFunction, four overloads):
    p 'fro' (its default) over every element, over two dims (frobenius_norm's sqrt(sum(x * x)),
    whose gradient is NaN at z's zero matrix, as PyTorch's) and one (the 2-norm, whose gradient
    is 0 there), keepdim, negative dims; a number p (2, 1, inf, 0.5, 3, None) with dims as a
    list, an int or None, and a dtype; n holds NaN and inf, e is empty, s is 0-dim."""
    inf = float("inf")
    return (torch.norm(x), torch.norm(x, 'fro'), torch.norm(x, dim=(0, 1)),
            torch.norm(x, p='fro', dim=[1, 2], keepdim=True), torch.norm(x, 'fro', 1),
            torch.norm(x, dim=(-1, 0)), torch.norm(x, p=1, dim=1), torch.norm(x, 2),
            torch.norm(x, inf, [0, 2]), torch.norm(x, None, -1, True), torch.norm(x, 0.5, dim=[1]),
            torch.norm(x, 2.5, [0, 1], dtype=torch.float64), torch.norm(x, p=2, dim=(0, 2)),
            torch.norm(n, dim=(0, 1)), torch.norm(n, 3.0, 0), torch.norm(z, dim=(1, 2)),
            torch.norm(z, 'fro', -1), torch.norm(e), torch.norm(e, dim=(0, 1)), torch.norm(s),
            torch.norm(s, 1))


def torch_norm_inputs(inputs):
    """n holds NaN and inf; z's first matrix and second row of its second are zeros."""
    x, n, z, e, s = inputs
    n = n.clone()
    n[0, 1] = float("nan")
    n[2, 3] = float("inf")
    z = z.clone()
    z[0] = 0.0
    z[1, 1] = 0.0
    return [x, n, z, e, s]


FUNCTIONS += [
    (torch_norms, [(2, 3, 4), (3, 4), (2, 2, 3), (2, 0), ()], torch_norm_inputs),
]


def pad_circular_crops(x, e):
    """F.pad in mode 'circular' with negative pads on two dims (each cropped place's gradient a
    zero) and beside an empty padded dim (e: its gradient is empty)."""
    a = F.pad(x, [-1, 2, 1, -2], mode='circular')
    return a * a, F.pad(e, [0, 0, -1, 0], mode='circular')


FUNCTIONS += [
    (pad_circular_crops, [(1, 2, 4, 5), (1, 1, 3, 0)]),
]



from typing import Optional  # noqa: E402  (here: lines above it are the graphs' sources)


def masked_attention_optional(q, k, v, mask: Optional[torch.Tensor]):
    """Attention with an Optional mask refined by `is not None`, ... and None in its
    subscripts, a number on the left of a tensor operator."""
    s = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / q.size(-1) ** 0.5)
    if mask is not None:
        s = s.masked_fill(mask[:, None, ...] == 0, -1e9)
    if mask is None:
        s = s - 0.5 * s.mean(-1, keepdim=True)
    p = s.softmax(-1)
    return torch.matmul(p, v)[..., :3], 1 - p[..., 0]


def attention_mask(inputs):
    """mask: 0/1 int64 per batch row of keys."""
    gen = torch.Generator().manual_seed(3)
    return inputs[:3] + [(torch.rand(2, 5, 5, generator=gen) > 0.3).long()]


FUNCTIONS += [
    (masked_attention_optional, [(2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 4), (1,)], attention_mask),
]


def threshold_remainder_special(x, y):
    """F.threshold in a DifferentiableGraph: its symbolic formula g * (x > threshold) gives 0
    at a NaN x (PyTorch's autograd would pass it); remainder's gradient for other is -g * floor
    division, NaN for an infinite self."""
    return F.threshold(x * y + x, 0.5, -2.0) * y, torch.remainder(x, y) * 3.0


FUNCTIONS += [
    (threshold_remainder_special, [(3, 4), (3, 4)], with_nan_inf),
]


def threshold_alone_nan(x):
    """F.threshold outside any DifferentiableGraph: autograd's threshold_backward passes the
    gradient at NaN."""
    return F.threshold(x, 0.5, -2.0)


FUNCTIONS += [
    (threshold_alone_nan, [(2, 3)], with_nan_inf),
]


def optional_refinements(x, m: Optional[torch.Tensor], b: Optional[torch.Tensor]):
    """Refinement inside 'and', 'or' and a conditional expression (PyTorch refines there too)."""
    if m is not None and m.size(0) > 1:
        x = x + m
    y = b if b is not None else x
    if b is None or b.sum() > 0:
        y = y * 2.0
    return x * y


FUNCTIONS += [
    (optional_refinements, [(3, 4), (3, 4), (3, 4)]),
]

def relative(text):
    return text.replace(ROOT + "/", "")


def main():
    torch._C._jit_set_profiling_executor(False)
    torch._C._jit_set_profiling_mode(False)
    index = []
    for fn, shapes, *prepare in FUNCTIONS:
        name = fn.__name__
        folder = os.path.join(HERE, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(os.path.join(folder, "case-0"))
        with open(os.path.join(folder, "source.py"), "w") as f:
            f.write(textwrap.dedent(inspect.getsource(fn)))
            for helper in getattr(fn, "helpers", ()):  # the program is the first def
                f.write("\n\n" + textwrap.dedent(inspect.getsource(helper)))
        scripted = torch.jit.script(fn)
        with open(os.path.join(folder, "graph.ir"), "w") as f:
            f.write(relative(str(scripted.graph)).rstrip("\n") + "\n")
        gen = torch.Generator().manual_seed(len(index) + 11)
        # Scaled so that every branch of the piecewise activations is taken.
        inputs = [torch.randn(s, generator=gen) * 3 for s in shapes]
        no_grad = set()
        seed = None
        for change in prepare:
            inputs = change(inputs)
            no_grad |= getattr(change, "frozen", set())
            seed = getattr(change, "seed", seed)
        inputs = [x.requires_grad_() if x.is_floating_point() and k not in no_grad else x
                  for k, x in enumerate(inputs)]
        floats = [x for x in inputs if x.requires_grad]
        for _ in range(2):
            scripted(*inputs)
        if seed is not None:
            torch.manual_seed(seed)
        # What the recorded run read: a program may update an input in place (running stats).
        before = [x.detach().clone() for x in inputs]
        outs = scripted(*inputs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        grads = list(torch.autograd.grad(sum(o.sum() for o in outs), floats))
        case = os.path.join(folder, "case-0")
        args = []
        grad_files = []
        for k, x in enumerate(inputs):
            np.save(os.path.join(case, "in%d.npy" % k), before[k].numpy())
            if x.requires_grad:
                args.append("in%d.npy:requires_grad=1" % k)
                np.save(os.path.join(case, "grad%d.npy" % k), grads.pop(0).numpy())
                grad_files.append("grad%d.npy" % k)
            else:  # indices and loss weights: no gradient
                args.append("in%d.npy" % k)
                grad_files.append(None)
        for k, o in enumerate(outs):
            np.save(os.path.join(case, "out%d.npy" % k), o.detach().numpy())
        doc = {
            "args": args,
            "outputs": ["out%d.npy" % k for k in range(len(outs))],
            "grads": grad_files,
            "pytorch": {"forward_graph": relative(str(scripted.graph_for(*inputs)))},
        }
        if seed is not None:
            doc["seed"] = seed
        with open(os.path.join(case, "case.json"), "w") as f:
            json.dump(doc, f, indent=2)
        index.append(name + "/case-0")
    with open(os.path.join(HERE, "INDEX"), "w") as f:
        f.write("\n".join(index) + "\n")


if __name__ == "__main__":
    main()
