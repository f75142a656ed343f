#!/usr/bin/env bash
# What a GPU machine runs, in at most 8 minutes of device time (issue 39, item 2), from the repo root:
#   SIGPROP_REVISION=$(git describe --always --dirty --abbrev=12) bash bench/gpu_session.sh [OUT]
#   bash bench/gpu_session.sh --dry      (no GPU: every step's Python entry point on the CPU, seconds)
# OUT: the argument, else $OUT (the device tool's folder), else bench/results. Each step runs under
# `timeout`; the caps sum to at most 480 s (the script refuses more):
#   0. the machine: date, GPU, CPU, torch and CUDA versions                          ENV_CAP    10 s
#   1. the CUDA tests: every test named cuda (the training engine's graphs vs eager and CUDA vs
#      CPU, tests/test_training_engine.py; the device-parametrized unit tests), without the
#      Snakemake parity test (-m "not workflow": it ran on an H100 and an H200; PARITY_CAP > 0
#      runs it, Snakemake installed) and without the paper-shape smoke (opt-in)    TEST_CAP   80 s
#   2. the training engine's A/B on CUDA (bench/training_engine.py): loop.EAGER vs CUDA graphs
#      at Dan+20's deepest Fig. 1 stack (depth 32, width 128, 35 members, batch 128), 300 steps,
#      BN and vanilla                                                                 AB_CAP     60 s
#   3. a cut run at paper shapes of every real-data training of Dan+20, DJB21 and Thesis ch. 6
#      (bench/gpu_training.py: 24 SGD steps per stack, generated data at full size) and its
#      projection to the paper run                                                     TRAIN_CAP 320 s
# Files in OUT (the device tool returns 8 at most): gpu_environment.txt, gpu_cuda_tests.txt,
# gpu_training_engine.csv, gpu_training.csv, gpu_training_stacks.csv, gpu_session.log, and
# cuda_parity.csv when the parity test runs. The CSVs carry the date and SIGPROP_REVISION (a
# machine given the working tree without .git cannot tell the revision itself).
# Setup: on a fresh machine `pip install -e .[dev]`; on a GPU image with torch and no network,
# nothing: the script puts src/ on PYTHONPATH and runs $PYTHON, else the project's .venv, else
# python3 (pyyaml, pandas and pytest needed; Snakemake only for the parity test).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dry=0
if [ "${1:-}" = "--dry" ]; then dry=1; shift; fi
out=$(realpath -m "${1:-${OUT:-bench/results}}")
[ "$dry" = 1 ] && [ -z "${1:-}" ] && out=$(mktemp -d)
mkdir -p "$out"
python=$(command -v "${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}")
[[ $python = /* ]] || python=$root/$python  # absolute, but not resolved: a venv's link must stay
export PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export SIGPROP_REVISION="${SIGPROP_REVISION:-$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)}"
env_cap=${ENV_CAP:-10} test_cap=${TEST_CAP:-80} parity_cap=${PARITY_CAP:-0}
ab_cap=${AB_CAP:-60} train_cap=${TRAIN_CAP:-320}
total=$(( env_cap + test_cap + parity_cap + ab_cap + train_cap ))
if [ "$total" -gt 480 ]; then
    echo "gpu_session: the caps sum to $total s, over the 480 s of device time; lower TRAIN_CAP" >&2
    exit 2
fi
log=$out/gpu_session.log
env_txt=$out/gpu_environment.txt
: > "$log"
step() {  # step NAME CAP FILE COMMAND...: run under the cap, output to FILE, record the exit
    local name=$1 cap=$2 file=$3
    shift 3
    [ "$cap" -gt 0 ] || return 0
    echo "== $name (cap $cap s)" | tee -a "$log"
    timeout "$cap" "$@" >> "$file" 2>&1
    echo "$name: exit $?" | tee -a "$env_txt" "$log"
}

{
    date -u
    echo "revision $SIGPROP_REVISION; caps: env $env_cap, tests $test_cap, parity $parity_cap," \
        "A/B $ab_cap, trainings $train_cap (s)"
    timeout $(( env_cap / 2 )) nvidia-smi --query-gpu=name,memory.total,driver_version \
        --format=csv 2>&1 | head -3
    lscpu 2>/dev/null | grep -E '^Model name|^CPU\(s\)'
    timeout $(( env_cap / 2 )) "$python" -c 'import torch; print("torch", torch.__version__, "cuda",
        torch.version.cuda, "available", torch.cuda.is_available())'
} > "$env_txt" 2>&1
cat "$env_txt"

if [ "$dry" = 1 ]; then  # the Python entry points on the CPU, tiny: they parse and run
    step "engine A/B (dry)" 120 "$log" "$python" bench/training_engine.py --dry \
        --out "$out/gpu_training_engine.csv"
    step "cut trainings (dry)" 300 "$log" "$python" bench/gpu_training.py --dry --out-dir "$out" \
        --only rank_collapse/depth_training gradients/weight_orthogonality
    grep -E "exit|->" "$log"
    exit 0
fi

# 1. The CUDA tests; the test modules that need Snakemake to import are left out without it (and
#    a module that fails to import for another reason costs its own tests only).
ignore=()
if ! "$python" -c "import snakemake" 2> /dev/null; then
    for f in $(grep -l -E "^(from|import) snakemake" tests/test_*.py); do ignore+=(--ignore "$f"); done
fi
step "cuda tests" "$test_cap" "$out/gpu_cuda_tests.txt" "$python" -m pytest -v -p no:cacheprovider \
    --durations=0 --continue-on-collection-errors -k cuda -m "not workflow" \
    ${ignore[@]+"${ignore[@]}"} tests
tail -3 "$out/gpu_cuda_tests.txt"
step "cuda parity (Snakemake)" "$parity_cap" "$out/gpu_cuda_tests.txt" \
    env SIGPROP_PARITY_OUT="$out" "$python" -m pytest -v -p no:cacheprovider tests/test_cuda_parity.py

# 2. The training engine's A/B on CUDA.
step "engine A/B" "$ab_cap" "$log" "$python" bench/training_engine.py --device cuda --steps 300 \
    --reps 2 --out "$out/gpu_training_engine.csv"

# 3. Every real-data training at paper shapes, cut to 24 steps per stack, projected.
step "cut trainings" "$train_cap" "$log" "$python" bench/gpu_training.py --device cuda --steps 24 \
    --budget $(( train_cap - 65 )) --timeout 60 --out-dir "$out"
grep -E "exit|old/new|projected" "$log" | tail -30
