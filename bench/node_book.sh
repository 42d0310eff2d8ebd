#!/usr/bin/env bash
# Resume a book build in progress on a lent node, for minutes, on every core, and
# bring its store (and the book, if the build finished) back: by default the NYT
# hard book, whose store travels in the repository (checkpoints/README.md).
#
#   bench/node_book.sh OUT [PYTHON]      # PYTHON default python3; mpiexec beside it
#
# Environment: RANKS (default: every core), LIMIT (seconds of the build, default
# 360), MODE (default hard), LISTS (default nyt), CUTOFF (default 11679, one past
# the published tenth best of the NYT hard table). The kernels are compiled once
# before the ranks start (about a minute on a fresh node). OUT gets build.log, the
# store as it is at the end as store.tgz (unpack it over checkpoints/ to keep the
# progress) and,
# when the build finished, the book's .npz (copy it into solver/data/book/).
# Tried on the 2-core VM with RANKS=2 LIMIT=30 (2026-11-27): the build stopped by
# its limit after 92 s (planning, then up to 60 s for the openers in flight, which
# are then cut short and stay pending: allow LIMIT + 90 s). On a 16-core node
# (2026-11-27): warming 67 s, LIMIT=330 under a 590 s timeout ran 400 s and valued
# 98 of the last 107 openers; the last 9 each took over 200 s of a core, on 9 ranks
# while 7 waited (a build under a cutoff values whole openers), and two more calls
# of this length did not fit in the node's 15 minutes.
set -u
out=${1:?usage: bench/node_book.sh OUT [PYTHON]}
py=${2:-python3}
mkdir -p "$out"
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 NUMBA_NUM_THREADS=1
ranks=${RANKS:-$(nproc)}
limit=${LIMIT:-360}
mode=${MODE:-hard}
lists=${LISTS:-nyt}
cutoff=${CUTOFF:-11679}
store=checkpoints/book-$lists-$mode-6.zarr
mpiexec=$("$py" -c "import os, sys; print(os.path.join(os.path.dirname(sys.executable), 'mpiexec'))")
say() { echo "[$(date +%T)] $*"; }

say "machine: $(nproc) cores, $ranks ranks; store $store"
"$py" -m solver query --store "$store" 2>&1 | head -2

say "warm: the kernels of solve and run ($mode)"
"$py" -m solver solve salet --quiet --mode "$mode" > /dev/null
"$py" -m solver run --store /tmp/node-warm.zarr --mode "$mode" --cutoff 99999 \
  --openers salet,xylyl --progress-seconds 3600 > /dev/null 2>&1

say "book build: $limit s on $ranks ranks"
# SIGTERM stops the ranks cleanly (the store stays consistent) if the limit's own
# stop runs long, so the store still comes back within the caller's timeout.
timeout -s TERM $((limit + 120)) "$mpiexec" -n "$ranks" "$py" -m solver book build --lists "$lists" --mode "$mode" \
  --no-players --popular 0 --cutoff "$cutoff" --store "$store" --time-limit "$limit" \
  > "$out/build.log" 2>&1
echo "exit $?" >> "$out/build.log"
tail -4 "$out/build.log"

say "results"
"$py" -m solver query --store "$store" 2>&1 | head -2
# one archive: a lent node returns at most 8 files, none more than 2 folders down
tar -C "$(dirname "$store")" -czf "$out/store.tgz" "$(basename "$store")"
book=solver/data/book/$lists-$mode-6.npz
if [ -f "$book" ]; then cp "$book" "$out/"; fi  # none in the repository until then
ls "$out"
say "done"
