#!/bin/sh
# The CPU fuser beside PyTorch 1.13's: the LSTM and MiLSTM cells forward + backward at 64x512
# and 1024x1024 (bench/fuser_bench, bench/pytorch_fuser_cpu.py) in one table, then our fused
# kernels' bandwidth against memcpy.
# Usage: bench/fuser.sh [BUILD_DIR] [--quick]. One thread for BLAS and PyTorch (BENCH_THREADS);
# our fused loops take two threads on large groups whatever BENCH_THREADS says (the header
# line says where).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_init fuser.sh fuser_bench "$@"
"$bench" $quick > "$ours"
"$py" "$here/pytorch_fuser_cpu.py" $quick > "$theirs" || true

cpu=$(awk -F: '/model name/ { sub(/^ +/, "", $2); print $2; exit }' /proc/cpuinfo)
cpus=$(getconf _NPROCESSORS_ONLN)
# engine/fuser/cpu_backend.c splits a group over a second thread from 524,288 elements,
# engine/fuser/cpu_fused_loop.c from 32,768 elements, both when more than one CPU is online;
# the cells' groups run over B x H or B x 4H elements (at most 131,072 at 64x512).
[ "$(or_na "$(get "$ours" online_cpus)")" = 1 ] && c_big=1 || c_big=2
echo "machine: $cpu, $cpus CPUs online; threads: $threads for OpenBLAS, PyTorch and OpenMP" \
  "(PyTorch's fused kernels included); jitscope's unfused kernels 1, its fused loops" \
  "(not limited by BENCH_THREADS): generated C 1 at 64x512 and $c_big at 1024x1024," \
  "the evaluator $c_big at both"
version=$(get "$theirs" torch_version)
if [ -n "$version" ]; then
  echo "PyTorch: $version (TorchScript: legacy executor; CPU fuser on through" \
    "$(get "$theirs" torch_fuser_switches); its FusionGroups at 64x512:" \
    "$(get "$theirs" lstm_64x512_fuser_groups); at 1024x1024:" \
    "$(get "$theirs" lstm_1024x1024_fuser_groups))"
else
  echo "PyTorch: n/a ($(or_na "$(get "$theirs" reason)"))"
fi
[ "$(get "$ours" have_cc)" = 1 ] || echo "no C compiler: the generated C column ran the evaluator"
echo
echo "LSTM and MiLSTM cells forward + backward, float32, ms per iteration (median of" \
  "$(get "$ours" lstm_64x512_iters) at 64x512, $(get "$ours" lstm_1024x1024_iters) at 1024x1024;" \
  "the evaluator column for the LSTM cell only):"
echo
echo "| cell | batch x hidden | jitscope fused (generated C) | jitscope fused (evaluator) | jitscope unfused | PyTorch eager | PyTorch TorchScript (no fusion) | PyTorch TorchScript (CPU fuser) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for c in $cells; do
  for s in $cell_sizes; do
    k=${c}_$s
    echo "| $(cell_name "$c") | $s | $(get "$ours" "${k}_fused_c_ms") | $(or_na "$(get "$ours" "${k}_fused_eval_ms")")" \
      "| $(get "$ours" "${k}_unfused_ms") | $(or_na "$(get "$theirs" "${k}_eager_ms")")" \
      "| $(or_na "$(get "$theirs" "${k}_script_ms")")" \
      "| $(or_na "$(get "$theirs" "${k}_fuser_ms")") |"
  done
done
for c in $cells; do
  for s in $cell_sizes; do
    why=$(get "$theirs" "${c}_${s}_fuser_reason")
    [ -z "$why" ] || echo "PyTorch CPU fuser, $c at $s: $why"
  done
done
echo
echo "jitscope's fused kernels alone (threads as above), bytes read + written / median time," \
  "against memcpy $(get "$ours" memcpy_gbs) GB/s (read + write, 256 MiB, one thread; the" \
  "64x512 operands, under 1 MiB, stay in cache):"
echo
echo "| batch x hidden | kernel | generated C: ms | GB/s | of memcpy | evaluator: ms | GB/s | of memcpy |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for s in 64x512 1024x1024; do
  for k in cell axpy; do
    [ "$k" = cell ] && name="LSTM cell pointwise" || name="a*b+c"
    row="| $s | $name"
    for b in c eval; do
      row="$row | $(get "$ours" "kernel_${s}_${k}_${b}_ms") | $(get "$ours" "kernel_${s}_${k}_${b}_gbs")"
      row="$row | $(get "$ours" "kernel_${s}_${k}_${b}_of_memcpy_pct")%"
    done
    echo "$row |"
  done
done
