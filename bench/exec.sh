#!/bin/sh
# Executor benchmarks beside PyTorch 1.13's legacy executor: one table.
# Usage: bench/exec.sh [BUILD_DIR] [--quick]. One thread for BLAS and PyTorch (BENCH_THREADS).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build"
quick=""
for a in "$@"; do
  case "$a" in
    --quick) quick=--quick ;;
    *) build=$a ;;
  esac
done
bench="$build/bench/exec_bench"
[ -x "$bench" ] || { echo "exec.sh: no exec_bench under '$build' (build it with ninja first)" >&2; exit 2; }
threads=${BENCH_THREADS:-1}
export OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads BENCH_THREADS=$threads
export JITSCOPE_SOURCE_DIR="$here/.."
ours=$(mktemp) theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs"' EXIT
"$bench" $quick > "$ours"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" "$here/pytorch_exec.py" $quick > "$theirs" || true
get() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
or_na() { [ -n "$1" ] && echo "$1" || echo "n/a"; }
echo "PyTorch: $(or_na "$(get "$theirs" torch_version)") (legacy executor); $threads thread(s)"
echo
echo "| workload | jitscope | PyTorch 1.13 |"
echo "| --- | --- | --- |"
echo "| LSTM cell compile, forward plan ($(get "$ours" lstm_forward_stages) stages; ms, median) | $(get "$ours" lstm_compile_forward_ms) | (inside first call) |"
echo "| LSTM cell compile, backward plan ($(get "$ours" lstm_backward_stages) stages; ms, median) | $(get "$ours" lstm_compile_backward_ms) | (inside first call) |"
echo "| LSTM cell first call: compile + forward + backward, batch 64, hidden 512 (ms) | $(get "$ours" lstm_first_call_ms) | $(or_na "$(get "$theirs" torch_lstm_first_call_ms)") |"
echo "| LSTM cell steady state: forward + backward (ms) | $(get "$ours" lstm_steady_call_ms) | $(or_na "$(get "$theirs" torch_lstm_steady_call_ms)") |"
echo "| cached plan, 3-node graph, 1-element tensors, no grad (us/call) | $(get "$ours" small_call_us) | $(or_na "$(get "$theirs" torch_small_call_us)") |"
