#!/usr/bin/env bash
# A real one-node SLURM cluster on this machine, for the cluster-path test (tests/test_cluster.py).
#   tests/slurm/one_node.sh start DIR   install slurm-wlm and munge if missing (Debian), write
#                                       DIR/slurm.conf, start munged, slurmctld and slurmd
#   tests/slurm/one_node.sh stop DIR    stop the daemons it started (by pid), leave nothing running
# Commands that talk to the cluster need SLURM_CONF=DIR/slurm.conf in their environment; the
# config is also linked from the default path /etc/slurm/slurm.conf while the cluster runs
# (Snakemake's job-step executor drops SLURM_CONF before its srun), so the script refuses to
# start where a SLURM config of another cluster is installed (exit 3).
# Accounting is off (no slurmdbd): status comes from squeue, not sacct.
set -euo pipefail

action=${1:?usage: one_node.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: one_node.sh start|stop DIR}")

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo -n"; fi

system_conf=/etc/slurm/slurm.conf

stop() {
    if [ -L "$system_conf" ] && [ "$(readlink "$system_conf")" = "$dir/slurm.conf" ]; then
        $sudo rm -f "$system_conf"
    fi
    for daemon in slurmd slurmctld munged; do
        pidfile="$dir/$daemon.pid"
        if [ -f "$pidfile" ]; then
            pid=$(cat "$pidfile")
            $sudo kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do $sudo kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            $sudo kill -9 "$pid" 2>/dev/null || true
            rm -f "$pidfile"
        fi
    done
}

install() {
    command -v slurmctld >/dev/null && command -v munged >/dev/null && return
    command -v apt-get >/dev/null || { echo "no slurmctld/munged and no apt-get" >&2; exit 3; }
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null \
        || { $sudo apt-get update >/dev/null && \
             $sudo apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null; }
}

start() {
    install
    if [ -e "$system_conf" ] || [ -L "$system_conf" ]; then
        echo "$system_conf exists (another cluster's config): no test cluster here" >&2
        exit 3
    fi
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    host=$(hostname -s)
    # twice the cores: the executor plugin checks job states at growing intervals (up to 3 min)
    # while no job ends, so a finished job's slot can sit idle that long; with two jobs a core
    # the other job keeps it busy (slurmd takes the counts below, not the hardware's)
    cpus=$(( 2 * $(nproc) ))
    memory=$(( $(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo) * 3 / 4 ))
    # two free ports, so that another cluster on this machine (or a stale one) does not clash
    read -r ctld_port slurmd_port < <(python3 -c 'import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("", 0))
print(*(s.getsockname()[1] for s in socks))')
    key="$dir/munge/munge.key"
    [ -f "$key" ] || { head -c 1024 /dev/urandom > "$key"; chmod 600 "$key"; }
    $sudo munged --force --key-file="$key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"
    cat > "$dir/slurm.conf" <<CONF
ClusterName=sigprop-test
SlurmctldHost=$host
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
# a job past its time limit is killed 2 s after its SIGTERM (the time-limit test, test_time_limit.py)
KillWait=2
SchedulerParameters=sched_interval=1
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    $sudo mkdir -p "$(dirname "$system_conf")"
    $sudo ln -s "$SLURM_CONF" "$system_conf"
    $sudo slurmctld -f "$SLURM_CONF"
    $sudo slurmd -f "$SLURM_CONF"
    for _ in $(seq 100); do
        if sinfo -h -o %T 2>/dev/null | grep -qx idle; then echo "SLURM_CONF=$SLURM_CONF"; return; fi
        sleep 0.2
    done
    echo "the one-node cluster did not come up; logs in $dir" >&2
    stop
    exit 4
}

case "$action" in
    start) start ;;
    stop) stop ;;
    *) echo "usage: one_node.sh start|stop DIR" >&2; exit 2 ;;
esac
