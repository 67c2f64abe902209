#!/usr/bin/python3
"""Writes the graph texts PyTorch 1.13 prints for everyday functions and modules into this
folder (one file per print), for the real-graphs test: every one must parse and print back.

Run with Debian's python3-torch:  /usr/bin/python3 tests/realgraphs/gen_realgraphs.py
The texts are PyTorch's own prints; nothing here is produced by jitscope."""
import os
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
torch.manual_seed(0)


def write(name, text):
    with open(os.path.join(HERE, name + ".ir"), "w") as f:
        # Source comments name this machine's paths; keep them relative to the repository.
        text = str(text).replace(ROOT + "/", "")
        f.write(text.rstrip("\n") + "\n")


def f_linear(x, w, b):
    return F.linear(x, w, b)


def f_layer_norm(x, w, b):
    return F.layer_norm(x, [x.size(-1)], w, b)


def f_conv2d(x, w):
    return F.conv2d(x, w, padding=1)


def f_embedding(idx, w):
    return F.embedding(idx, w)


def f_dropout(x):
    return F.dropout(x, 0.5, False)


def f_silu(x):
    return F.silu(x)


def f_mse_loss(x, y):
    return F.mse_loss(x, y)


def f_batch_norm(x, mean, var):
    return F.batch_norm(x, mean, var, training=False)


def f_nll_loss(x, t):
    return F.nll_loss(F.log_softmax(x, 1), t)


def f_attention(q, k, v):
    scores = torch.matmul(q, k.transpose(-2, -1)) / (q.size(-1) ** 0.5)
    return torch.matmul(torch.softmax(scores, -1), v)


def f_mlp(x, w1, b1, w2, b2):
    h = torch.relu(F.linear(x, w1, b1))
    return torch.log_softmax(F.linear(h, w2, b2), dim=1)


FUNCTIONS = {
    "linear": (f_linear, (torch.randn(4, 3), torch.randn(5, 3), torch.randn(5))),
    "layer_norm": (f_layer_norm, (torch.randn(4, 6), torch.randn(6), torch.randn(6))),
    "conv2d": (f_conv2d, (torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3))),
    "embedding": (f_embedding, (torch.tensor([[0, 2], [1, 3]]), torch.randn(4, 5))),
    "dropout": (f_dropout, (torch.randn(4, 3),)),
    "silu": (f_silu, (torch.randn(4, 3),)),
    "mse_loss": (f_mse_loss, (torch.randn(4, 3), torch.randn(4, 3))),
    "batch_norm": (f_batch_norm, (torch.randn(4, 3), torch.randn(3), torch.rand(3) + 0.5)),
    "nll_loss": (f_nll_loss, (torch.randn(4, 3), torch.tensor([0, 2, 1, 1]))),
    "attention": (f_attention, (torch.randn(2, 4, 8), torch.randn(2, 4, 8), torch.randn(2, 4, 8))),
    "mlp": (f_mlp, (torch.randn(4, 3), torch.randn(8, 3), torch.randn(8), torch.randn(5, 8),
                    torch.randn(5))),
}


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return F.log_softmax(self.out(torch.relu(self.fc(x))), dim=-1)


def seeded(seed, make):
    torch.manual_seed(seed)
    return make()


MODULES = {
    "linear_module": (nn.Linear(3, 5), (torch.randn(4, 3),)),
    "sequential": (nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 2)), (torch.randn(4, 3),)),
    "mlp_module": (MLP(), (torch.randn(4, 3),)),
    "transformer_layer": (nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16,
                                                     dropout=0.0), (torch.randn(3, 2, 8),)),
    # Frozen, the folded conv bias is small enough that PyTorch prints its values; with this
    # seed's weights it prints them with a common factor (`0.01 * ...`).
    "conv_bn_pool": (seeded(4, lambda: nn.Sequential(nn.Conv2d(3, 4, 3, padding=1),
                                                      nn.BatchNorm2d(4), nn.ReLU(),
                                                      nn.MaxPool2d(2))),
                     (torch.randn(1, 3, 8, 8),)),
}


def main():
    torch._C._jit_set_profiling_executor(False)
    torch._C._jit_set_profiling_mode(False)
    for name, (fn, args) in FUNCTIONS.items():
        s = torch.jit.script(fn)
        write("fn_" + name, s.graph)
        args = [a.clone().requires_grad_(i == 0 and a.is_floating_point()) for i, a in enumerate(args)]
        for _ in range(2):
            s(*args)
        write("fn_" + name + ".graph_for", s.graph_for(*args))
    for name, (mod, args) in MODULES.items():
        mod.eval()
        s = torch.jit.script(mod)
        write("mod_" + name, s.graph)
        write("mod_" + name + ".inlined", s.inlined_graph)
        frozen = torch.jit.freeze(s)
        write("mod_" + name + ".frozen", frozen.graph)
        with torch.no_grad():
            for _ in range(2):
                frozen(*args)
            write("mod_" + name + ".frozen.graph_for", frozen.graph_for(*args))


# Lists and dicts (issue 11), after the others so that their lines and draws stay as they
# were; annotations resolve from this module's globals.
from typing import Dict  # noqa: E402


def f_dict_ops(x, y):
    d: Dict[str, torch.Tensor] = {"x": x, "y": y}
    d["xy"] = x * y
    total = x
    for k, v in d.items():
        if k != "x":
            total = total + v
    return total * float(len(d)) + d.get("z", y) + torch.stack(d.values()).mean(0)


def f_list_ops(x, y):
    xs = [x, y, x * y]
    parts = xs[1:] + xs[::2]
    parts.insert(0, y)
    last = parts.pop()
    return torch.cat(parts[:-1] + [last], 1)


FUNCTIONS.update({
    "dict_ops": (f_dict_ops, (torch.randn(4, 3), torch.randn(4, 3))),
    "list_ops": (f_list_ops, (torch.randn(4, 3), torch.randn(4, 3))),
})


if __name__ == "__main__":
    main()
