#!/usr/bin/env bash
# One prepared check for a 16-core node with a GPU that is lent for minutes: the
# CuPy pattern table (tests and benchmark), then the scaling rows that need the
# cores (bench_scaling.py): the easy book from scratch on every core; an easy
# sample at 1, 2, 4 and 8 ranks at once on disjoint cores, then on every core;
# the hard book; `best --top 1`. Most important first: a run cut short at its time
# limit keeps every row finished so far (each JSON is rewritten as rows come).
#
#   bench/node_check.sh OUT [PYTHON]      # PYTHON default python3; mpiexec beside it
#
# Environment: RANKS (default: every core), TOGETHER (default 1,2,4,8), SAMPLE
# (openers of the sample, default 24), BOOK_MODES (default easy,hard), BEST_MODES
# (default easy). Tried on the 2-core VM with RANKS=2 TOGETHER=1 SAMPLE=2 BOOK_MODES=.
#
# Its length, from the first visit (2026-11-27, 16 Xeon cores, about 1.3x the VM's
# per-core speed): install and machine 5 s, warm 74 s, GPU 10 s, easy book 56 s,
# hard book 89 s, best 32 s. The sample's seed is fixed, so its cost is known: the
# first 10 openers took 38 s on one node core, the 24 took 241 s on one VM core
# (about 190 s on the node), and 40 took over 330 s on the node (cut off). With 24,
# the whole check is about 8 minutes: give it a 580 s limit.
# Then: python bench/bench_scaling.py --report OUT/scaling-*.json
set -u
out=${1:?usage: bench/node_check.sh OUT [PYTHON]}
py=${2:-python3}
mkdir -p "$out"
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 NUMBA_NUM_THREADS=1
ranks=${RANKS:-$(nproc)}
together=${TOGETHER:-1,2,4,8}
sample=${SAMPLE:-24}
book_modes=${BOOK_MODES-easy,hard}
best_modes=${BEST_MODES-easy}
mpiexec=$("$py" -c "import os, sys; print(os.path.join(os.path.dirname(sys.executable), 'mpiexec'))")
say() { echo "[$(date +%T)] $*"; }

say "machine"
{
  nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2
  nvidia-smi -L 2>&1
  "$py" -c "import sys, numpy, numba, zarr, mpi4py; print(sys.version.split()[0], \
'numpy', numpy.__version__, 'numba', numba.__version__, 'zarr', zarr.__version__, \
'mpi4py', mpi4py.__version__)"
  "$py" -c "import cupy; print('cupy', cupy.__version__)" 2>&1 | tail -1
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

say "MPI: 2 ranks"
"$mpiexec" -n 2 "$py" -c "from mpi4py import MPI; c = MPI.COMM_WORLD; \
print(c.Get_rank(), c.Get_size(), MPI.Get_library_version().split(',')[0])" || exit 1

# The kernels compile once (about a minute on a fresh node) and are cached; easy
# and hard at once. The pattern table and the book's scoring scan too.
say "warm: kernels of solve, run (planning, cutoffs), score"
for mc in easy:7921 hard:8123; do  # a cutoff one past the best total: refutations
  m=${mc%:*}
  ( "$py" -m solver solve salet --quiet --mode $m > /dev/null &&
    "$py" -m solver run --store "/tmp/node-warm-$m.zarr" --mode $m --cutoff ${mc#*:} \
      --openers salet,xylyl,fuzzy --progress-seconds 3600 > /dev/null 2>&1 ) &
done
"$py" -m solver score > /dev/null 2>&1
wait
say "warm done"

say "GPU: tests/test_table.py, bench/bench_table.py"
"$py" -m pytest -q -p no:cacheprovider -o addopts=-ra -m gpu tests/test_table.py 2>&1 | tail -5
"$py" bench/bench_table.py --json > "$out/table.json" 2>&1
cat "$out/table.json"

sample_rows() {
  say "easy sample of $sample: ranks $together at once, then $ranks"
  "$py" bench/bench_scaling.py --together "$together" --ranks "$ranks" --sample "$sample" \
    --workloads sample --modes easy --out "$out/scaling-sample.json"
}
# The easy book, then the sample (a known length), then the hard book (the least
# certain), so that a run cut at its limit loses the least.
sampled=
for m in ${book_modes//,/ }; do
  say "$m book from scratch on $ranks ranks"
  "$py" bench/bench_scaling.py --ranks "$ranks" --workloads book --modes "$m" \
    --out "$out/scaling-book-$m.json"
  if [ "$m" = easy ]; then sample_rows; sampled=1; fi
done
[ -n "$sampled" ] || sample_rows
if [ -n "$best_modes" ]; then
  say "best --top 1 on $ranks ranks: $best_modes"
  "$py" bench/bench_scaling.py --ranks "$ranks" --workloads best --modes "$best_modes" \
    --out "$out/scaling-best.json"
fi
"$py" bench/bench_scaling.py --report "$out"/scaling-*.json | tee "$out/report.md"
say "done"
