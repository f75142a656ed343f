#!/usr/bin/env bash
# What a session that is lent a GPU runs, once, within 8 minutes of device time (issue 25, item 5):
#   bench/gpu_session.sh [OUT]        (OUT defaults to $OUT, else bench/results/gpu)
# 1. the CUDA tests (every test parametrized over devices, CUDA no longer skipped), 3 min cap;
# 2. a few paper-scale simulations and measurements on CUDA, timed by Snakemake's benchmark
#    files, 4 min cap: the synthetic items the cost table projects at 10 s .. 10 min on an H100;
# 3. what ran where: nvidia-smi, torch and CUDA versions, the benchmark rows.
# Everything lands under OUT: environment.txt, cuda_tests.txt, paper_jobs.csv, claims of the
# items that finished. It needs the project's Python environment (torch with CUDA, snakemake,
# pytest): `make .venv/.installed` on the GPU machine, or a carried venv.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-${OUT:-bench/results/gpu}}")
mkdir -p "$out"
python=$(realpath "$(command -v "${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}")")

{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
    "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
        "available", torch.cuda.is_available())'
} > "$out/environment.txt" 2>&1

# 1. CUDA tests: the device-parametrized tests, CUDA cases only.
timeout 180 "$python" -m pytest -q -p no:cacheprovider -m "not workflow" -k cuda \
    > "$out/cuda_tests.txt" 2>&1
echo "cuda tests: exit $?" >> "$out/environment.txt"

# 2. Paper-scale items on CUDA, the cheapest projected first (sigprop targets --gpu).
work=$(mktemp -d)
git ls-files -z | xargs -0 -I{} cp --parents {} "$work" 2>/dev/null || cp -r . "$work"
targets=$(cd "$work" && PYTHONPATH=src "$python" -m sigprop.cli targets --gpu --max-seconds 60)
(
    cd "$work" && PATH="$(dirname "$python"):$PATH" \
        timeout 240 "$python" -m snakemake --cores 4 --keep-going $targets \
        --configfile config/paper.yaml --config device=cuda > "$out/snakemake.txt" 2>&1
)
echo "paper-scale jobs: exit $?" >> "$out/environment.txt"

# 3. Timings (Snakemake's benchmark files) and the claims that finished.
PYTHONPATH="$work/src" "$python" - "$work" "$out" <<'EOF'
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
