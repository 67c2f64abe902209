#!/usr/bin/env python3
"""PyTorch's numbers for the executor benchmarks (bench/exec_bench.c measures ours), with the
legacy graph executor (reference section 2):
  lstm: the corpus lstm_cell scripted afresh per repeat, weights requiring grad, batch 64,
        hidden 512, float32: first call (compile + forward + backward) and steady state;
  small: per-call time of a cached plan for x * y + sigmoid(x) on 1-element tensors, no_grad.
Prints `key value` lines (bench/exec.sh reads them). Without PyTorch it says so and exits 3.
"""
import os
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("pytorch_exec: PyTorch is not installed (Debian: apt-get install python3-torch; "
          "run with /usr/bin/python3)", file=sys.stderr)
    sys.exit(3)

QUICK = "--quick" in sys.argv
torch.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
torch._C._jit_set_profiling_executor(False)
torch._C._jit_set_profiling_mode(False)

SOURCE = '''
def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = ingate.sigmoid()
    forgetgate = forgetgate.sigmoid()
    cellgate = cellgate.tanh()
    outgate = outgate.sigmoid()
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * cy.tanh()
    return hy, cy

def small(x, y):
    return x * y + torch.sigmoid(x)
'''


def inputs(batch, hidden):
    torch.manual_seed(0)
    x, hx, cx = (torch.randn(batch, hidden) for _ in range(3))
    # Weights scaled by 1/sqrt(hidden), as bench_common.h's bench_cell_weight_scale: with
    # Normal(0, 1) weights every gate saturates and the backward meets denormal floats.
    w = [(torch.randn(4 * hidden, hidden) / hidden ** 0.5).requires_grad_() for _ in range(2)]
    b = [torch.randn(4 * hidden, requires_grad=True) for _ in range(2)]
    return [x, hx, cx] + w + b


def fwd_bwd(fn, args):
    hy, cy = fn(*args)
    torch.autograd.grad((hy.sum() + cy.sum()), args[3:])


def main():
    repeats = 5 if QUICK else 21
    args = inputs(64, 512)
    first, steady = [], []
    for _ in range(repeats):
        cu = torch.jit.CompilationUnit(SOURCE)
        t0 = time.perf_counter()
        fwd_bwd(cu.lstm_cell, args)
        first.append((time.perf_counter() - t0) * 1e3)
        for _ in range(3):
            fwd_bwd(cu.lstm_cell, args)
        t0 = time.perf_counter()
        fwd_bwd(cu.lstm_cell, args)
        steady.append((time.perf_counter() - t0) * 1e3)
    print("torch_version", torch.__version__)
    print("torch_lstm_first_call_ms %.4f" % statistics.median(first))
    print("torch_lstm_steady_call_ms %.4f" % statistics.median(steady))

    cu = torch.jit.CompilationUnit(SOURCE)
    x, y = torch.randn(1), torch.randn(1)
    calls = 2000 if QUICK else 20000
    per = []
    with torch.no_grad():
        for _ in range(3):
            cu.small(x, y)
        for _ in range(9):
            t0 = time.perf_counter()
            for _ in range(calls):
                cu.small(x, y)
            per.append((time.perf_counter() - t0) * 1e6 / calls)
    print("torch_small_call_us %.4f" % statistics.median(per))


main()
