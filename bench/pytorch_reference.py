#!/usr/bin/env python3
"""PyTorch's numbers for the interpreter benchmarks (bench/interp_bench.c measures ours).

Measures, with the legacy graph executor the corpus was printed with (reference section 2):
  chain: a 10,000-node graph v = aten::add(v, x, 1) on 1-element float32 tensors, built from
         the same IR text jitscope runs, run by TorchScript; ns per node, median of repeats.
         Also eager PyTorch (a Python loop of the same adds), for scale, and the same chain
         over ints (aten::add.int): TorchScript's own dispatch cost per node.
  lstm:  the corpus lstm_cell function scripted, forward at batch 64, input and hidden 512,
         float32, under no_grad; ms per iteration, median.
Prints `key value` lines (bench/run.sh reads them). Without PyTorch it says so and exits 3.
"""
import os
import statistics
import sys
import threading
import time

try:
    import torch
except ImportError:
    print("pytorch_reference: PyTorch is not installed (Debian: apt-get install python3-torch; "
          "run with /usr/bin/python3)", file=sys.stderr)
    sys.exit(3)

CHAIN_NODES = 10000


def chain_graph_text(n, ints=False):
    if ints:
        lines = ["graph(%x : int):"]
    else:
        lines = ["graph(%x : Tensor):", "  %one : int = prim::Constant[value=1]()"]
    prev = "%x"
    for i in range(n):
        if ints:
            lines.append(f"  %v{i} : int = aten::add({prev}, %x)")
        else:
            lines.append(f"  %v{i} : Tensor = aten::add({prev}, %x, %one)")
        prev = f"%v{i}"
    lines.append(f"  return ({prev})")
    return "\n".join(lines) + "\n"


def median_time(fn, repeats, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times)


def bench_chain(repeats):
    graph = torch._C.parse_ir(chain_graph_text(CHAIN_NODES))
    fn = torch._C._create_function_from_graph("chain", graph)
    x = torch.full((1,), 0.5)
    with torch.no_grad():
        ns = median_time(lambda: fn(x), repeats, warmup=3)
    print(f"torch_chain_ns_per_node {ns / CHAIN_NODES:.1f}")

    def eager():
        v = x
        for _ in range(CHAIN_NODES):
            v = torch.add(v, x, alpha=1)
        return v

    with torch.no_grad():
        ns = median_time(eager, max(3, repeats // 4), warmup=1)
    print(f"torch_eager_chain_ns_per_node {ns / CHAIN_NODES:.1f}")

    graph = torch._C.parse_ir(chain_graph_text(CHAIN_NODES, ints=True))
    fn = torch._C._create_function_from_graph("int_chain", graph)
    ns = median_time(lambda: fn(3), repeats, warmup=3)
    print(f"torch_int_chain_ns_per_node {ns / CHAIN_NODES:.1f}")


def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def bench_lstm(iters):
    batch, inp, hidden = 64, 512, 512
    g = torch.Generator().manual_seed(0)
    args = [torch.randn(batch, inp, generator=g), torch.randn(batch, hidden, generator=g),
            torch.randn(batch, hidden, generator=g), torch.randn(4 * hidden, inp, generator=g),
            torch.randn(4 * hidden, hidden, generator=g), torch.randn(4 * hidden, generator=g),
            torch.randn(4 * hidden, generator=g)]
    scripted = torch.jit.script(lstm_cell)
    with torch.no_grad():
        ms = median_time(lambda: scripted(*args), iters, warmup=10) / 1e6
        eager_ms = median_time(lambda: lstm_cell(*args), iters, warmup=10) / 1e6
        w = args[3]
        gemm_ms = median_time(lambda: (torch.mm(args[0], w.t()), torch.mm(args[1], w.t())),
                              iters, warmup=10) / 1e6
    print(f"torch_lstm_ms {ms:.4f}")
    print(f"torch_eager_lstm_ms {eager_ms:.4f}")
    print(f"torch_lstm_gemms_ms {gemm_ms:.4f}")


def main():
    quick = "--quick" in sys.argv
    torch._C._jit_set_profiling_executor(False)
    torch._C._jit_set_profiling_mode(False)
    threads = int(os.environ.get("BENCH_THREADS", "1"))
    torch.set_num_threads(threads)
    print(f"torch_version {torch.__version__}")
    print(f"torch_threads {torch.get_num_threads()}")
    # TorchScript's passes recurse along the 10,000-node chain: give them a big stack (the
    # default 8 MiB overflows).
    threading.stack_size(1 << 30)
    worker = threading.Thread(target=bench_chain, args=(5 if quick else 21,))
    worker.start()
    worker.join()
    bench_lstm(20 if quick else 200)


if __name__ == "__main__":
    main()
