#!/bin/bash
# Submit the job-array variant and its merge step in one go:
#   WDP_STORE=checkpoints/full.zarr slurm/submit-array.sh 32 [more sbatch options]
# -> N array tasks (one slice each), then the merge job once all of them succeeded.
# Extra options go to both sbatch calls (--partition, --account, --chdir, --time ...).
set -euo pipefail
n=${1:?usage: submit-array.sh N_SLICES [sbatch options...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable --array="0-$((n - 1))" "$@" "$here/wordle-dp-array.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" "$@" "$here/wordle-dp-merge.sbatch")
echo "array job $array ($n tasks), merge job $merge"
