#!/usr/bin/python3
"""Writes tests/runtime/data/print.json: what PyTorch 1.13's prim::Print writes for tensors of
every dtype, rank and range the C++ formatter distinguishes (integers, fixed, scaled,
scientific, NaN/inf, wide matrices in column blocks, rank-3 slices, empty), plus scalars.

Run:  /usr/bin/python3 tests/runtime/gen_print_cases.py
Every expected text here is PyTorch's (captured from the scripted print)."""
import json
import os
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


@torch.jit.script
def show(x: torch.Tensor, i: int, f: float, b: bool, s: str):
    print(x, i, f, b, s, None)


def captured(x):
    """Runs show(x, ...) with file descriptor 1 redirected to a file; returns the text."""
    with tempfile.TemporaryFile() as out:
        saved = os.dup(1)
        os.dup2(out.fileno(), 1)
        try:
            show(x, 3, 0.1, True, "hi")
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        return out.read().decode()


def number(v):
    if v != v:
        return "nan"
    if v in (float("inf"), -float("inf")):
        return "inf" if v > 0 else "-inf"
    return v


def main():
    gen = torch.Generator().manual_seed(3)
    tensors = [
        torch.tensor(2.5),
        torch.tensor(7, dtype=torch.int64),
        torch.tensor([1.5, -2.0, 3.25]),
        torch.tensor([[1.5, -2.0, 3.25], [0.0, 1e-3, 100.0]]),
        torch.tensor([[1, 0, 1], [0, 1, 1]], dtype=torch.bool),
        torch.tensor([3, -12, 4000000000], dtype=torch.int64),
        torch.tensor([12345678.5, 2.0]),
        torch.tensor([1e-7, 3e-6], dtype=torch.float64),
        torch.tensor([1e-9, 1e9]),
        torch.tensor([float("nan"), 1.0, -float("inf")]),
        torch.tensor([float("nan"), float("inf")]),
        torch.randn(3, 25, generator=gen),
        torch.randn(2, 3, 4, generator=gen) * 1000,
        torch.randn(2, 2, 2, 3, generator=gen),
        torch.zeros(0, 3),
        torch.zeros(0),
        torch.tensor([[-5e-3, 2e-3]]),
    ]
    cases = []
    for x in tensors:
        cases.append({
            "dtype": str(x.dtype).replace("torch.", ""),
            "shape": list(x.shape),
            "values": [number(v) for v in x.reshape(-1).double().tolist()],
            "text": captured(x),
        })
    os.makedirs(os.path.join(HERE, "data"), exist_ok=True)
    with open(os.path.join(HERE, "data", "print.json"), "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
