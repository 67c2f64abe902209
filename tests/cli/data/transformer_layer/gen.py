"""Regenerates this folder with PyTorch 1.13 (Debian's /usr/bin/python3): the inlined graph of
a scripted nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0) in
eval mode (batch_first=False: PyTorch takes the slow path), its tensor parameters and input as
.npy files, and PyTorch's output (expected.npy). Run from this folder."""
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
m = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0).eval()
s = torch.jit.script(m)
x = torch.randn(3, 2, 8)
with open("graph.ir", "w") as f:
    f.write(str(s.inlined_graph))
for name, p in m.named_parameters():
    np.save(name.replace(".", "_") + ".npy", p.detach().numpy())
np.save("x.npy", x.numpy())
with torch.no_grad():
    np.save("expected.npy", s(x).numpy())
