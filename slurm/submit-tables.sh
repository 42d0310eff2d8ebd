#!/bin/bash
# The complete tables of one pair of built-in lists, every opener exact (or proven
# infeasible), easy and hard mode, cap 6: one self-requeueing MPI job per mode
# (slurm/wordle-dp-mpi.sbatch), each into its own resumable store.
#
#   slurm/submit-tables.sh nyt [more sbatch options]          # today's NYT lists
#   slurm/submit-tables.sh original --ntasks=64 --time=08:00:00
#   WDP_MODES=hard slurm/submit-tables.sh nyt                 # one mode only
#
# Stores: checkpoints/table-LISTS-MODE-6.zarr ("table-MODE-6.zarr" for the original
# lists, as checkpoints/README.md names them). Submitting again resumes: finished
# openers are never valued again. Watch with
#   wordle-dp query --store checkpoints/table-nyt-easy-6.zarr --progress
# WDP_LISTS_ARGS replaces "--lists LISTS" (list files: "--answers A --guesses G"; the
# tests' local Slurm uses it). What a table costs: BENCHMARKS.md.
set -euo pipefail
lists=${1:?usage: submit-tables.sh LISTS [sbatch options...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
lists_args=${WDP_LISTS_ARGS:---lists $lists}
for mode in ${WDP_MODES:-easy hard}; do
    case "$mode" in easy|hard|strict) ;; *) echo "unknown mode $mode" >&2; exit 2 ;; esac
    if [[ "$lists" == original ]]; then name="table-$mode-6"; else name="table-$lists-$mode-6"; fi
    store=${WDP_STORE_DIR:-checkpoints}/$name.zarr
    jid=$(WDP_STORE="$store" WDP_ARGS="$lists_args --mode $mode ${WDP_ARGS:-}" \
          sbatch --parsable --job-name="wdp-$name" "$@" "$here/wordle-dp-mpi.sbatch")
    echo "$mode: job ${jid%%;*} -> $store"
done
