#!/bin/sh
# Runs the interpreter benchmarks (bench/interp_bench) and PyTorch's (bench/pytorch_reference.py)
# and prints one table: workload | jitscope | PyTorch 1.13 | hardware limit.
# Usage: bench/run.sh [BUILD_DIR] [--quick]. Threads: BENCH_THREADS (default 1) for OpenBLAS
# and PyTorch alike. PyTorch comes from Debian's python3-torch (/usr/bin/python3).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_init run.sh interp_bench "$@"

"$bench" $quick > "$ours"
if ! "$py" "$here/pytorch_reference.py" $quick > "$theirs" 2> "$theirs.err"; then
  sed 's/^/  /' "$theirs.err" >&2
fi


cpu=$(awk -F: '/model name/ { sub(/^ +/, "", $2); print $2; exit }' /proc/cpuinfo)
echo "machine: $cpu, $(getconf _NPROCESSORS_ONLN) CPUs online; $threads thread(s) for BLAS and PyTorch"
echo "PyTorch: $(or_na "$(get "$theirs" torch_version)") (TorchScript, legacy executor, no_grad)"
echo
echo "| workload | jitscope | PyTorch 1.13 | hardware limit |"
echo "| --- | --- | --- | --- |"
echo "| interpreter cost per node: 10,000-node aten::add chain, 1-element float32 (ns/node, median) | $(or_na "$(get "$ours" chain_ns_per_node)") | $(or_na "$(get "$theirs" torch_chain_ns_per_node)") | $(or_na "$(get "$ours" chain_scalar_limit_ns)") (dependent scalar float adds) |"
echo "| interpreter dispatch per node: the same chain over ints, aten::add.int (ns/node, median) | $(or_na "$(get "$ours" int_chain_ns_per_node)") | $(or_na "$(get "$theirs" torch_int_chain_ns_per_node)") | $(or_na "$(get "$ours" chain_scalar_limit_ns)") (one dependent add) |"
echo "| LSTM cell forward, batch 64, input/hidden 512, float32 (ms/iter, median) | $(or_na "$(get "$ours" lstm_ms)") | $(or_na "$(get "$theirs" torch_lstm_ms)") | $(or_na "$(get "$ours" lstm_limit_ms)") ($(get "$ours" lstm_gemm_flops) GEMM FLOP at the measured sgemm peak $(get "$ours" sgemm_peak_gflops) GFLOP/s) |"
echo
echo "details:"
echo "  jitscope add kernel called directly, no interpreter: $(or_na "$(get "$ours" chain_kernel_only_ns)") ns/node; chain compiled in $(get "$ours" chain_compile_ms) ms into $(get "$ours" chain_registers) registers"
echo "  PyTorch eager (Python loop) chain: $(or_na "$(get "$theirs" torch_eager_chain_ns_per_node)") ns/node; eager LSTM: $(or_na "$(get "$theirs" torch_eager_lstm_ms)") ms"
echo "  the LSTM's two GEMMs alone at their shapes: OpenBLAS sgemm $(or_na "$(get "$ours" lstm_sgemm_calls_ms)") ms, PyTorch mm $(or_na "$(get "$theirs" torch_lstm_gemms_ms)") ms"
