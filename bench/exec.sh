#!/bin/sh
# Executor benchmarks beside PyTorch 1.13's legacy executor: one table.
# Usage: bench/exec.sh [BUILD_DIR] [--quick]. One thread for BLAS and PyTorch (BENCH_THREADS).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_init exec.sh exec_bench "$@"
export JITSCOPE_SOURCE_DIR="$here/.."
"$bench" $quick > "$ours"
"$py" "$here/pytorch_exec.py" $quick > "$theirs" || true
echo "PyTorch: $(or_na "$(get "$theirs" torch_version)") (legacy executor); $threads thread(s)"
echo
echo "| workload | jitscope | PyTorch 1.13 |"
echo "| --- | --- | --- |"
echo "| LSTM cell compile, forward plan ($(get "$ours" lstm_forward_stages) stages; ms, median) | $(get "$ours" lstm_compile_forward_ms) | (inside first call) |"
echo "| LSTM cell compile, backward plan ($(get "$ours" lstm_backward_stages) stages; ms, median) | $(get "$ours" lstm_compile_backward_ms) | (inside first call) |"
echo "| LSTM cell first call: compile + forward + backward, batch 64, hidden 512 (ms) | $(get "$ours" lstm_first_call_ms) | $(or_na "$(get "$theirs" torch_lstm_first_call_ms)") |"
echo "| LSTM cell steady state: forward + backward (ms) | $(get "$ours" lstm_steady_call_ms) | $(or_na "$(get "$theirs" torch_lstm_steady_call_ms)") |"
echo "| cached plan, 3-node graph, 1-element tensors, no grad (us/call) | $(get "$ours" small_call_us) | $(or_na "$(get "$theirs" torch_small_call_us)") |"
