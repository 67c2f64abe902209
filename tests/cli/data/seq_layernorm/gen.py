"""Regenerates this folder with PyTorch 1.13 (Debian's /usr/bin/python3): the inlined graph of
a scripted nn.Sequential(Linear(4, 8), ReLU(), LayerNorm(8)) in eval mode, its parameters and
input as .npy files, and PyTorch's output (expected.npy). Run from this folder."""
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.LayerNorm(8)).eval()
with torch.no_grad():
    m[2].weight.uniform_(0.5, 1.5)
    m[2].bias.uniform_(-0.5, 0.5)
s = torch.jit.script(m)
x = torch.randn(3, 4)
with open("graph.ir", "w") as f:
    f.write(str(s.inlined_graph))
for name, p in m.named_parameters():
    np.save(name.replace(".", "_") + ".npy", p.detach().numpy())
np.save("x.npy", x.numpy())
with torch.no_grad():
    np.save("expected.npy", s(x).numpy())
