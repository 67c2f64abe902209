# Shared by the bench/*.sh tables. `bench_init NAME EXE ARGS...` reads [BUILD_DIR] [--quick]
# from ARGS (BUILD_DIR defaults to ../build beside bench/) and sets: $build, $quick, $bench
# (BUILD_DIR/bench/EXE, which must exist), $threads (BENCH_THREADS, default 1, also given to
# OpenBLAS and OpenMP), $py (Debian's python3 when there), $ours and $theirs (temporary files,
# removed at exit); JITSCOPE_CORPUS_DIR defaults to ../../shared/corpus. The caller sets $here
# to bench/ before sourcing this file.
bench_init() {
  name=$1 exe=$2
  shift 2
  build="$here/../build"
  quick=""
  for a in "$@"; do
    case "$a" in
      --quick) quick=--quick ;;
      *) build=$a ;;
    esac
  done
  bench="$build/bench/$exe"
  [ -x "$bench" ] || { echo "$name: no $exe under '$build' (build it with ninja first)" >&2; exit 2; }
  threads=${BENCH_THREADS:-1}
  export OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads BENCH_THREADS=$threads
  : "${JITSCOPE_CORPUS_DIR:=$here/../../shared/corpus}"
  export JITSCOPE_CORPUS_DIR
  ours=$(mktemp) theirs=$(mktemp)
  trap 'rm -f "$ours" "$theirs" "$theirs.err"' EXIT
  py=/usr/bin/python3
  [ -x "$py" ] || py=python3
}

# The value of key $2 in the `key value` file $1: the rest of its line.
get() { awk -v k="$2" '$1 == k { sub(/^[^ ]+ /, ""); print; exit }' "$1"; }
or_na() { [ -n "$1" ] && echo "$1" || echo "n/a"; }
# The recurrent cells fuser_bench and pytorch_fuser_cpu.py time (key prefixes), their sizes
# (key infixes), and a cell's name in tables.
cells="lstm milstm"
cell_sizes="64x512 1024x1024"
cell_name() { [ "$1" = lstm ] && echo LSTM || echo MiLSTM; }
