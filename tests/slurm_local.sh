#!/usr/bin/env bash
# A throw-away single-node Slurm (munged + slurmctld + slurmd) for the tests.
#
#   tests/slurm_local.sh start DIR [N]
#                                    install the Debian packages if missing (root +
#                                    apt-get), write DIR/slurm.conf, start the three
#                                    daemons with their state, logs and sockets in DIR;
#                                    prints "SLURM_CONF=DIR/slurm.conf" when the node
#                                    is idle. Exit 3: cannot be brought up here.
#                                    N >= 2: N node names (wdp1..wdpN) on this one
#                                    machine, one slurmd each on its own port, so
#                                    that jobs span "nodes" (srun's PMI tells MPI
#                                    which ranks share a node); the machine's CPUs
#                                    and memory are split between them.
#   tests/slurm_local.sh stop DIR    stop exactly the daemons that 'start DIR' started
#                                    (pids recorded in DIR/*.pid), nothing else.
#
# No systemd: the daemons run in the foreground (-D) in the background of this
# script's session. Settings that matter for the tests:
#   MpiDefault=pmi2   with 'none', srun silently starts N singleton MPI ranks; the
#                     pip mpich wheel speaks PMI2 (pmix does not work with it).
#   AuthInfo cred_expire=10, sched/backfill intervals of 1-2 s: a requeued job is
#                     otherwise held for ~2 minutes before it may start again.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
nodes=${3:-1}
[[ -n "$cmd" && -n "$dir" ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

unusable() { echo "slurm_local: $*" >&2; exit 3; }

stop() {
    for f in "$dir"/slurmd*.pid "$dir/slurmctld.pid" "$dir/munged.pid"; do
        [[ -f "$f" ]] || continue
        pid=$(cat "$f")
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$f"
    done
}

if [[ "$cmd" == stop ]]; then
    stop
    exit 0
fi
[[ "$cmd" == start ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

# ---- packages ------------------------------------------------------------------
need=()
for b in munged slurmctld slurmd sbatch; do
    command -v "$b" >/dev/null 2>&1 || [[ -x /usr/sbin/$b ]] || need+=("$b")
done
if (( ${#need[@]} )); then
    [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null || unusable "missing ${need[*]}"
    echo "slurm_local: installing slurmctld slurmd slurm-client munge" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        slurmctld slurmd slurm-client munge >"$dir/apt.log" 2>&1 \
        || { apt-get update >>"$dir/apt.log" 2>&1 && \
             DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
             slurmctld slurmd slurm-client munge >>"$dir/apt.log" 2>&1; } \
        || unusable "apt-get install failed (see $dir/apt.log)"
fi
export PATH="$PATH:/usr/sbin:/sbin"
[[ $(id -u) == 0 ]] || unusable "slurmd must run as root here"

# ---- munge -----------------------------------------------------------------------
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
chmod 700 "$dir/munge"
if [[ ! -f "$dir/munge/munge.key" ]]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"
fi
sock="$dir/munge/munge.socket"
setsid munged -F --key-file="$dir/munge/munge.key" --socket="$sock" \
    --pid-file="$dir/munge/munged.pidf" --seed-file="$dir/munge/seed" \
    --log-file="$dir/log/munged.log" --force >"$dir/log/munged.out" 2>&1 &
echo $! >"$dir/munged.pid"
for _ in $(seq 50); do [[ -S "$sock" ]] && break; sleep 0.1; done
[[ -S "$sock" ]] || { stop; unusable "munged did not start (see $dir/log/munged.log)"; }

# ---- slurm.conf --------------------------------------------------------------------
host=$(hostname -s)
# more CPUs than the machine has (config_overrides): tests run 3-rank jobs on 2 cores
cpus=$(( $(nproc) < 8 ? 8 : $(nproc) ))
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
d_port=$(free_port)
if (( nodes > 1 )); then
    names=(); lines=""
    for i in $(seq "$nodes"); do
        names+=("wdp$i")
        lines+="NodeName=wdp$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$(free_port)"
        lines+=" CPUs=$cpus RealMemory=$(( mem / nodes )) State=UNKNOWN"$'\n'
    done
    part=$(IFS=,; echo "${names[*]}")
else
    names=("$host")
    lines="NodeName=$host NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN"
    part=$host
fi
cat >"$dir/slurm.conf" <<EOF
# generated by tests/slurm_local.sh for a throw-away single-node cluster
ClusterName=wdptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/state/slurmctld.pidf
SlurmdPidFile=$dir/spool/slurmd-%n.pidf
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=pmi2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=1,sched_min_interval=100000
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=10
MessageTimeout=10
JobRequeue=1
$lines
PartitionName=debug Nodes=$part Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
: >"$dir/cgroup.conf"
export SLURM_CONF="$dir/slurm.conf"

setsid slurmctld -D -i -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
echo $! >"$dir/slurmctld.pid"
for i in "${!names[@]}"; do
    pidf="$dir/slurmd.pid"
    (( i )) && pidf="$dir/slurmd$(( i + 1 )).pid"
    setsid slurmd -D -f "$SLURM_CONF" -N "${names[$i]}" >"$dir/log/${names[$i]}.out" 2>&1 &
    echo $! >"$pidf"
done

for _ in $(seq 150); do
    state=$(sinfo -h -N -o '%t' 2>/dev/null | sort -u | tr '\n' ' ' || true)
    [[ "$state" == "idle " ]] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
    for f in "$dir"/slurmctld.pid "$dir"/slurmd*.pid; do
        kill -0 "$(cat "$f")" 2>/dev/null \
            || { tail -5 "$dir"/log/* >&2 2>/dev/null || true;
                 stop; unusable "$(basename "$f" .pid) exited (see $dir/log)"; }
    done
    sleep 0.2
done
tail -5 "$dir"/log/*.log >&2 2>/dev/null || true
stop
unusable "node did not become idle (state '${state:-?}')"
