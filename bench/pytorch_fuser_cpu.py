#!/usr/bin/env python3
"""PyTorch on the CPU beside bench/fuser_bench.c: the LSTM and MiLSTM cells forward + backward,
float32, at 64x512 and 1024x1024, median ms per iteration after warm-up, for
  eager:  the cell as a Python function;
  script: TorchScript, legacy graph executor, fusion off;
  fuser:  TorchScript, legacy graph executor, PyTorch's (legacy) CPU fuser on; its column is
          `n/a` with the reason unless a prim::FusionGroup appears in the optimized graph.
Inputs as bench_rnn_cell (bench/bench_common.c): x, hx, cx [B, H] without grad; w_ih, w_hh
[4H, H] and then [4H] vectors requiring grad (the LSTM's b_ih, b_hh; the MiLSTM's alpha,
beta_i, beta_h, bias); backward: the gradients of hy.sum() + cy.sum() with respect to those
(torch.autograd.grad, as ours returns them). Keys start with the cell: lstm_64x512_eager_ms,
milstm_1024x1024_fuser_ms. Threads: BENCH_THREADS
(default 1). Each timed loop also counts its minor page faults per iteration (getrusage; the
script column prints them). Prints `key value` lines (bench/fuser.sh reads them); without
PyTorch one `reason` line, exit 0. Usage: pytorch_fuser_cpu.py [--quick].
"""
import os
import re
import resource
import statistics
import sys
import time

try:
    import torch
except ImportError as e:
    print("reason pytorch_fuser_cpu: PyTorch is not importable (%s; Debian: apt-get install "
          "python3-torch, run with /usr/bin/python3)" % e)
    sys.exit(0)

QUICK = "--quick" in sys.argv
THREADS = int(os.environ.get("BENCH_THREADS", "1"))
torch.set_num_threads(THREADS)
torch._C._jit_set_profiling_executor(False)
if hasattr(torch._C, "_jit_set_profiling_mode"):
    torch._C._jit_set_profiling_mode(False)

# The cells as ../shared/corpus/{lstm_cell,milstm_cell}/source.py write them.
SOURCES = {"lstm": '''
def cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    hy = o * cy.tanh()
    return hy, cy
''', "milstm": '''
def cell(x, hx, cx, w_ih, w_hh, alpha, beta_i, beta_h, bias):
    Wx = x.mm(w_ih.t())
    Uz = hx.mm(w_hh.t())
    gates = alpha * Wx * Uz + beta_i * Wx + beta_h * Uz + bias
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    hy = o * cy.tanh()
    return hy, cy
'''}
N_VECTORS = {"lstm": 2, "milstm": 4}


def eager(cell):
    scope = {"torch": torch}
    exec(SOURCES[cell], scope)
    return scope["cell"]

# The legacy fuser (FuseGraph) reads the "_legacy" switch in 1.13; older releases had only
# _jit_override_can_fuse_on_cpu. Both are set where they exist.
FUSER_SWITCHES = [n for n in ("_jit_override_can_fuse_on_cpu",
                              "_jit_override_can_fuse_on_cpu_legacy") if hasattr(torch._C, n)]
GROUP = re.compile(r"= prim::FusionGroup_\d+\(")


def set_cpu_fuser(on):
    for name in FUSER_SWITCHES:
        getattr(torch._C, name)(on)


def inputs(cell, batch, hidden):
    torch.manual_seed(0)
    x, hx, cx = (torch.randn(batch, hidden) for _ in range(3))
    # Weights scaled by 1/sqrt(hidden), as bench_common.h's bench_cell_weight_scale: with
    # Normal(0, 1) weights every gate saturates and the backward meets denormal floats.
    w = [(torch.randn(4 * hidden, hidden) / hidden ** 0.5).requires_grad_() for _ in range(2)]
    b = [torch.randn(4 * hidden, requires_grad=True) for _ in range(N_VECTORS[cell])]
    return [x, hx, cx] + w + b


def fwd_bwd(fn, args):
    hy, cy = fn(*args)
    return torch.autograd.grad(hy.sum() + cy.sum(), args[3:])


FAULTS = {"per_iter": 0.0}  # minor page faults per timed iteration of the latest median_ms


def median_ms(fn, args, iters, warmup=3):
    times = []
    faults = 0
    for it in range(-warmup, iters):
        if it == 0:
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        start = time.perf_counter()
        grads = fwd_bwd(fn, args)
        if it >= 0:
            times.append((time.perf_counter() - start) * 1e3)
        del grads
    FAULTS["per_iter"] = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / iters
    return statistics.median(times)


def fusion_groups(fn, args):
    """FusionGroups in the optimized forward graph (graph_for) and in the graph the last
    backward ran (None where that graph is not the backward's)."""
    fwd = str(fn.graph_for(*args))
    hy, cy = fn(*args)
    after_forward = str(torch._C._last_executed_optimized_graph())
    torch.autograd.grad(hy.sum() + cy.sum(), args[3:])
    after_backward = str(torch._C._last_executed_optimized_graph())
    bwd = len(GROUP.findall(after_backward)) if after_backward != after_forward else None
    return len(GROUP.findall(fwd)), bwd


def measure(cell, batch, hidden, iters):
    key = "%s_%dx%d" % (cell, batch, hidden)
    n = 3 if QUICK and batch > 64 else iters
    args = inputs(cell, batch, hidden)
    print("%s_iters %d" % (key, n))
    print("%s_eager_ms %.3f" % (key, median_ms(eager(cell), args, n)))
    set_cpu_fuser(False)
    script = torch.jit.CompilationUnit(SOURCES[cell]).cell
    print("%s_script_ms %.3f" % (key, median_ms(script, args, n)))
    print("%s_script_minor_faults_per_iter %.1f" % (key, FAULTS["per_iter"]))
    set_cpu_fuser(True)
    fused = torch.jit.CompilationUnit(SOURCES[cell]).cell
    try:
        ms = median_ms(fused, args, n)
        fwd, bwd = fusion_groups(fused, args)
    except RuntimeError as e:  # the fuser compiles its kernels with the C++ compiler
        ms, fwd, bwd = None, 0, None
        reason = "fused run failed: %s" % str(e).splitlines()[0]
    else:
        reason = ("no prim::FusionGroup in the optimized forward graph (switches: %s)"
                  % (", ".join(FUSER_SWITCHES) or "none"))
    set_cpu_fuser(False)
    bwd_text = "?" if bwd is None else str(bwd)
    print("%s_fuser_groups %d forward, %s backward" % (key, fwd, bwd_text))
    if fwd and ms is not None:
        print("%s_fuser_ms %.3f" % (key, ms))
    else:
        print("%s_fuser_ms n/a" % key)
        print("%s_fuser_reason %s" % (key, reason))


def main():
    iters = 5 if QUICK else 21
    print("torch_version", torch.__version__)
    print("torch_threads", torch.get_num_threads())
    print("torch_fuser_switches", ",".join(FUSER_SWITCHES) or "none")
    for cell in ("lstm", "milstm"):
        for batch, hidden in ((64, 512), (1024, 1024)):
            measure(cell, batch, hidden, iters)
    print("torch_fuser_kernel_specs", torch._C._jit_debug_fuser_num_cached_kernel_specs())


main()
