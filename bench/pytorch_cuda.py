#!/usr/bin/env python3
"""PyTorch on the GPU beside bench/cuda_bench.c: the LSTM cell forward + backward, float32,
at 64x512 and 1024x1024, eager and torch.compile, median ms per iteration (the stream
drained each iteration, as cuda_bench does). Prints "no GPU" and exits 0 when PyTorch or a
CUDA device is missing. Usage: pytorch_cuda.py [--quick]."""
import statistics
import sys
import time


def cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    hy = o * cy.tanh()
    return hy, cy


def bench(torch, fn, batch, hidden, iters):
    dev = torch.device("cuda")
    gen = torch.Generator(device="cpu").manual_seed(0)

    def randn(*shape, grad=False, scale=1.0):
        return (torch.randn(*shape, generator=gen) * scale).to(dev).requires_grad_(grad)

    x, hx, cx = randn(batch, hidden), randn(batch, hidden), randn(batch, hidden)
    # Weights scaled by 1/sqrt(hidden), as bench_common.h's bench_cell_weight_scale.
    w_scale = hidden ** -0.5
    w_ih = randn(4 * hidden, hidden, grad=True, scale=w_scale)
    w_hh = randn(4 * hidden, hidden, grad=True, scale=w_scale)
    b_ih, b_hh = randn(4 * hidden, grad=True), randn(4 * hidden, grad=True)
    times = []
    for it in range(-3, iters):
        torch.cuda.synchronize()
        start = time.perf_counter()
        hy, cy = fn(x, hx, cx, w_ih, w_hh, b_ih, b_hh)
        (hy.sum() + cy.sum()).backward()
        torch.cuda.synchronize()
        if it >= 0:
            times.append((time.perf_counter() - start) * 1e3)
        for p in (w_ih, w_hh, b_ih, b_hh):
            p.grad = None
    return statistics.median(times)


def main():
    quick = "--quick" in sys.argv
    try:
        import torch
    except ImportError:
        print("pytorch_cuda: no GPU: PyTorch is not installed")
        return 0
    if not torch.cuda.is_available():
        print("pytorch_cuda: no GPU: torch.cuda.is_available() is False")
        return 0
    print(f"GPU: {torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}")
    iters = 10 if quick else 50
    print("LSTM cell forward+backward, float32 (median ms):")
    print(f"{'B x H':<12} {'eager':>10} {'compile':>10}")
    compiled = torch.compile(cell)
    for batch, hidden in ((64, 512), (1024, 1024)):
        eager = bench(torch, cell, batch, hidden, iters)
        try:
            comp = f"{bench(torch, compiled, batch, hidden, iters):10.3f}"
        except Exception as e:  # torch.compile needs a working Triton toolchain
            comp = f"{'n/a':>10} ({type(e).__name__})"
        print(f"{batch}x{hidden:<8} {eager:10.3f} {comp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
