#!/usr/bin/env bash
# What a GPU machine runs, once, within 8 minutes of device time (issue 25, item 5):
#   bench/gpu_session.sh [OUT]        (OUT defaults to $OUT, else bench/results/gpu)
# 1. the paper-shape smoke of every real-data simulation on CUDA (tests/test_paper_smoke.py),
#    $SMOKE_CAP s (default 280);
# 2. the other CUDA tests: the device-parametrized unit tests and tests/test_cuda_parity.py (every
#    synthetic item of the tiny config on CUDA reaches the CPU run's verdicts), $TEST_CAP s (130);
# 3. real-data simulations at paper shapes on generated data (bench/gpu_training.py), $TRAIN_CAP s
#    (120);
# 4. the cheapest paper-scale claims on CUDA end to end through Snakemake, timed by its
#    benchmark files, $JOBS_CAP s (0: skipped; run on the H100 on 2026-11-26);
# 5. what ran where: nvidia-smi, torch and CUDA versions.
# On a bare GPU machine with torch but no Snakemake, carry a wheel folder and install from it
# first (the device tool: carry [".whl"]):
#   pip download snakemake==9.27.1 pytest -d .whl --python-version 3.12 --only-binary=:all: \
#       --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --platform any
#   (on the GPU machine) for p in snakemake pytest; do pip install --no-index --find-links .whl $p; done
# A step whose cap is 0 is skipped. pytest runs verbosely, so a step cut by its cap keeps the
# results of the tests it finished.
# Everything lands under OUT: environment.txt, cuda_tests.txt, gpu_training.csv, paper_jobs.csv,
# paper_claims_cuda.csv, snakemake.txt. The project's Python environment must be importable:
# the project's venv, or (on a bare GPU machine) its packages on PYTHONPATH; the script puts
# src/ on PYTHONPATH itself.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(realpath -m "${1:-${OUT:-bench/results/gpu}}")
mkdir -p "$out"
python=$(command -v "${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}")
[[ $python = /* ]] || python=$root/$python  # absolute, but not resolved: a venv's link must stay
export PYTHONPATH="$root/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export PATH="$(dirname "$python"):$PATH"
cores=$(nproc)

{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
    lscpu | grep -E '^Model name|^CPU\(s\)' 2>&1
    "$python" -c 'import torch, snakemake; print("torch", torch.__version__, "cuda", torch.version.cuda,
        "available", torch.cuda.is_available(), "snakemake", snakemake.__version__)'
} > "$out/environment.txt" 2>&1
cat "$out/environment.txt"

# 1. The paper-shape smoke on CUDA; 2. the other CUDA tests.
if [ "${SMOKE_CAP:-280}" -gt 0 ]; then
    SIGPROP_PAPER_SMOKE=1 timeout "${SMOKE_CAP:-280}" "$python" -m pytest -v -p no:cacheprovider \
        --durations=0 -k cuda tests/test_paper_smoke.py > "$out/cuda_smoke.txt" 2>&1
    echo "paper-shape smoke on CUDA: exit $?" | tee -a "$out/environment.txt"
    grep -cE "PASSED|FAILED" "$out/cuda_smoke.txt"; tail -3 "$out/cuda_smoke.txt"
fi
if [ "${TEST_CAP:-130}" -gt 0 ]; then
    SIGPROP_PARITY_OUT="$out" timeout "${TEST_CAP:-130}" "$python" -m pytest -v -p no:cacheprovider \
        -k cuda --ignore tests/test_paper_smoke.py tests > "$out/cuda_tests.txt" 2>&1
    echo "cuda tests: exit $?" | tee -a "$out/environment.txt"
    tail -5 "$out/cuda_tests.txt"
fi

# 3. Real-data simulations at paper shapes: those left unprojected so far (bench/README.md,
#    "GPU"); bench/gpu_cost.py, which timed the synthetic
#    items, is kept for a rerun after engine changes.
if [ "${TRAIN_CAP:-120}" -gt 0 ]; then
    timeout "${TRAIN_CAP:-120}" "$python" bench/gpu_training.py --out "$out/gpu_training.csv" \
        --budget $(( ${TRAIN_CAP:-120} - 60 )) --timeout 55 --only orthogonality/deep_convnets \
        gradients/shaped_cifar10 gradients/weight_orthogonality orthogonality/init_mlp \
        gradients/table_c1 > "$out/gpu_training.txt" 2>&1
    echo "gpu_training: exit $?" | tee -a "$out/environment.txt"
    tail -8 "$out/gpu_training.txt"
fi
[ "${JOBS_CAP:-0}" -gt 0 ] || exit 0

# 3. Paper-scale claims on CUDA (the cheapest projected first), in a copy of the workflow.
work=$(mktemp -d)
cp -r Snakefile workflow config envs src profiles "$work"/
mkdir -p "$work/bench/results" && cp bench/results/{paper_cost,paper_cpu_jobs,gpu_cost}.csv "$work/bench/results/"
targets=$(cd "$work" && "$python" -m sigprop.cli targets --gpu --max-seconds 30)
(
    cd "$work" && export PYTHONPATH="$work/src:$PYTHONPATH" &&
        timeout "$JOBS_CAP" "$python" -m snakemake --cores "$cores" --resources gpu=1 --keep-going \
        $targets --configfile config/paper.yaml --config device=cuda > "$out/snakemake.txt" 2>&1
)
echo "paper-scale jobs: exit $?" | tee -a "$out/environment.txt"

# 4. Timings (Snakemake's benchmark files) and the claims that finished.
PYTHONPATH="$work/src:${PYTHONPATH}" "$python" - "$work" "$out" <<'EOF'
import sys
from pathlib import Path

import pandas as pd

work, out = Path(sys.argv[1]), Path(sys.argv[2])
rows = []
for tsv in sorted((work / "benchmarks").rglob("*.tsv")):
    row = pd.read_csv(tsv, sep="\t").iloc[0].to_dict()
    rows.append({"job": f"{tsv.parent.name}/{tsv.stem}", **row})
pd.DataFrame(rows).to_csv(out / "paper_jobs.csv", index=False)
claims = sorted((work / "results" / "claims").rglob("*.json"))
if claims:
    from sigprop.claims import ledger

    ledger(claims).to_csv(out / "paper_claims_cuda.csv", index=False)
print(f"{len(rows)} jobs timed, {len(claims)} claims files -> {out}")
EOF
rm -rf "$work"
