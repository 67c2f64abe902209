#!/bin/sh
# Every benchmark table in one run, as markdown: the fused LSTM and MiLSTM cells against their
# GEMM floor and PyTorch 1.13, what an iteration costs in memory (minor page faults, the allocator's peak,
# the processes' peak RSS), the interpreter and the executor beside PyTorch, and the fused
# kernels' bandwidth. Ratios compare figures of this one run; ours and PyTorch's benchmarks
# alternate (fuser, interpreter, executor) so that a change of load hits both.
# Usage: bench/all.sh [BUILD_DIR] [--quick] (a release build: meson setup -Dbuildtype=release).
# Threads: BENCH_THREADS (default 1) for OpenBLAS and PyTorch.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_init all.sh fuser_bench "$@"
for exe in interp_bench exec_bench; do
  [ -x "$build/bench/$exe" ] || { echo "all.sh: no $exe under '$build'" >&2; exit 2; }
done
export JITSCOPE_SOURCE_DIR="$here/.."
work=$(mktemp -d)
trap 'rm -rf "$work" "$ours" "$theirs"' EXIT

# key value lines of one run, with the process's peak RSS (KiB) appended as max_rss_kib.
measure() {
  out=$1
  shift
  /usr/bin/time -f "max_rss_kib %M" -o "$out.rss" "$@" > "$out" 2> "$out.err" || true
  cat "$out.rss" >> "$out"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
measure "$work/fuser.ours" "$bench" $quick
measure "$work/fuser.theirs" "$py" "$here/pytorch_fuser_cpu.py" $quick
measure "$work/interp.ours" "$build/bench/interp_bench" $quick
measure "$work/interp.theirs" "$py" "$here/pytorch_reference.py" $quick
measure "$work/exec.ours" "$build/bench/exec_bench" $quick
measure "$work/exec.theirs" "$py" "$here/pytorch_exec.py" $quick
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# ratio A B: A / B as "1.23x", or n/a.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else printf "n/a" }'; }
mib() { awk -v k="$1" 'BEGIN { if (k + 0 > 0) printf "%.0f", k / 1024; else printf "n/a" }'; }
fo=$work/fuser.ours ft=$work/fuser.theirs io=$work/interp.ours it=$work/interp.theirs
eo=$work/exec.ours et=$work/exec.theirs

cpu=$(awk -F: '/model name/ { sub(/^ +/, "", $2); print $2; exit }' /proc/cpuinfo)
echo "machine: $cpu, $(getconf _NPROCESSORS_ONLN) CPUs online, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo);" \
  "load average $load_before before, $load_after after; $threads thread(s) for OpenBLAS and PyTorch"
echo "PyTorch: $(or_na "$(get "$ft" torch_version)") (TorchScript: legacy executor)"
echo
echo "## LSTM and MiLSTM cells forward + backward (float32, ms per iteration, median)"
echo
echo "GEMM floor: the cell's four matrix products at its shapes timed alone through the same BLAS" \
  "(the same four in both cells), measured beside each cell: cell and floor one after the other" \
  "in $(or_na "$(get "$fo" lstm_64x512_rounds)") round(s), times the rounds' medians, \"of floor\"" \
  "the median of the rounds' ratios (least to most in brackets)."
echo
echo "| cell | batch x hidden | GEMM floor | jitscope fused (generated C) | of floor | jitscope unfused | PyTorch eager | PyTorch TorchScript | PyTorch TorchScript + CPU fuser | jitscope fused / PyTorch best |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for c in $cells; do
  for s in $cell_sizes; do
    k=${c}_$s
    fused=$(get "$fo" "${k}_fused_c_ms") floor=$(get "$fo" "${k}_gemm_floor_ms")
    best=$(for v in eager script fuser; do get "$ft" "${k}_${v}_ms"; done |
      awk '$1 + 0 > 0 && (m == "" || $1 + 0 < m) { m = $1 + 0 } END { print m }')
    of_floor=$(get "$fo" "${k}_of_floor")
    if [ -n "$of_floor" ] && [ "$(get "$fo" "${k}_rounds")" -gt 1 ]; then
      of_floor=$(awk -v m="$of_floor" -v lo="$(get "$fo" "${k}_of_floor_min")" \
        -v hi="$(get "$fo" "${k}_of_floor_max")" \
        'BEGIN { printf "%.2fx (%.2f to %.2f)", m, lo, hi }')
    else
      of_floor=$(ratio "$fused" "$floor")
    fi
    echo "| $(cell_name "$c") | $s | $(or_na "$floor") | $(or_na "$fused") | $of_floor" \
      "| $(or_na "$(get "$fo" "${k}_unfused_ms")") | $(or_na "$(get "$ft" "${k}_eager_ms")")" \
      "| $(or_na "$(get "$ft" "${k}_script_ms")") | $(or_na "$(get "$ft" "${k}_fuser_ms")")" \
      "| $(ratio "$fused" "$best") |"
  done
done
echo
echo "## Memory per iteration (forward + backward)"
echo
echo "| cell | batch x hidden | jitscope minor page faults | PyTorch TorchScript minor page faults | jitscope allocator peak (MiB above the inputs) |"
echo "| --- | --- | --- | --- | --- |"
for c in $cells; do
  for s in $cell_sizes; do
    k=${c}_$s
    echo "| $(cell_name "$c") | $s | $(or_na "$(get "$fo" "${k}_minor_faults_per_iter")")" \
      "| $(or_na "$(get "$ft" "${k}_script_minor_faults_per_iter")")" \
      "| $(or_na "$(get "$fo" "${k}_peak_mib_per_iter")") |"
  done
done
echo
echo "Peak RSS of the whole fuser benchmark process (both cells and sizes, every variant): jitscope" \
  "$(mib "$(get "$fo" max_rss_kib)") MiB, PyTorch $(mib "$(get "$ft" max_rss_kib)") MiB."
echo
echo "## Interpreter and executor"
echo
echo "| workload | jitscope | PyTorch 1.13 | jitscope / PyTorch | hardware limit |"
echo "| --- | --- | --- | --- | --- |"
row() { # name ours theirs limit
  echo "| $1 | $(or_na "$2") | $(or_na "$3") | $(ratio "$2" "$3") | $4 |"
}
row "interpreter, 1-element float32 aten::add chain (ns/node)" \
  "$(get "$io" chain_ns_per_node)" "$(get "$it" torch_chain_ns_per_node)" \
  "$(or_na "$(get "$io" chain_scalar_limit_ns)") (dependent float adds); the add kernel alone: $(or_na "$(get "$io" chain_kernel_only_ns)")"
row "interpreter, aten::add.int chain (ns/node)" \
  "$(get "$io" int_chain_ns_per_node)" "$(get "$it" torch_int_chain_ns_per_node)" \
  "$(or_na "$(get "$io" chain_scalar_limit_ns)")"
row "LSTM cell forward, 64x512, interpreted (ms)" \
  "$(get "$io" lstm_ms)" "$(get "$it" torch_lstm_ms)" \
  "$(or_na "$(get "$io" lstm_limit_ms)") (GEMM FLOP at the sgemm peak)"
row "cached plan, 3 nodes, 1-element tensors, no grad (us/call)" \
  "$(get "$eo" small_call_us)" "$(get "$et" torch_small_call_us)" "-"
row "LSTM cell steady forward + backward through the executor, 64x512 (ms)" \
  "$(get "$eo" lstm_steady_call_ms)" "$(get "$et" torch_lstm_steady_call_ms)" "-"
row "LSTM cell first call: compile + forward + backward (ms)" \
  "$(get "$eo" lstm_first_call_ms)" "$(get "$et" torch_lstm_first_call_ms)" "-"
echo
echo "Compile, release build, every stage recorded: LSTM cell forward plan" \
  "$(or_na "$(get "$eo" lstm_compile_forward_ms)") ms ($(get "$eo" lstm_forward_stages) stages)," \
  "backward plan $(or_na "$(get "$eo" lstm_compile_backward_ms)") ms ($(get "$eo" lstm_backward_stages) stages)."
echo
echo "## Fused kernels alone (generated C), bytes read + written / median time"
echo
echo "memcpy: $(get "$fo" memcpy_gbs) GB/s (read + write, 256 MiB, one thread)."
echo
echo "| batch x hidden | kernel | ms | GB/s | of memcpy |"
echo "| --- | --- | --- | --- | --- |"
for s in 64x512 1024x1024; do
  for k in cell axpy; do
    [ "$k" = cell ] && name="LSTM cell pointwise" || name="a*b+c"
    echo "| $s | $name | $(get "$fo" "kernel_${s}_${k}_c_ms") | $(get "$fo" "kernel_${s}_${k}_c_gbs")" \
      "| $(get "$fo" "kernel_${s}_${k}_c_of_memcpy_pct")% |"
  done
done
for f in "$fo" "$io" "$eo"; do
  [ -s "$f.err" ] && sed 's/^/  stderr: /' "$f.err" >&2
done
exit 0
