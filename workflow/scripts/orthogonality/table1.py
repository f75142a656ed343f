"""DJB21 Table 1 (Thesis Table 2.1): distribution of representations, BN row measured."""

import pandas as pd

from sigprop.checks.orthogonality_gaussian import table1
from sigprop.store import atomic_path
from sigprop.workflow import log_to_file

log_to_file(snakemake.log[0])
table = table1(pd.read_csv(snakemake.input.plateau), snakemake.params.batch_size)
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
columns = ["network", "width", "depth", "distribution", "source"]
lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
lines += ["| " + " | ".join(str(r[c]) for c in columns) + " |" for _, r in table.iterrows()]
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text("DJB21 Table 1 (Thesis Table 2.1)\n\n" + "\n".join(lines) + "\n")
