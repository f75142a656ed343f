"""Thesis Table C.1 (app. C.4): rank of random image batches, measured beside the printed table.

{% set item = snakemake.config["gradients"]["table_c1"] -%}
{{ snakemake.config["scale"] | capitalize }} scale. Rank of random batches of training images,
{{ item["batches"] }} batches per dataset ({{ item["datasets"] | join(", ") }}) and batch size n in
{{ item["batch_sizes"] | join(", ") }}, drawn without replacement and flattened to D pixels, for raw
[0, 1] pixels and for the code's per-channel Normalize(mean, std) (the seed does not say which). Per
cell: mean +- std over batches of (a) the authors' number, ``torch.linalg.matrix_rank`` of the
float32 n x n Gram with its default tolerance; (b) the rank that means linear independence, float64
singular values of X above sigma_1 max(D, n) eps (X holds integer grey levels, exact in float64);
the float32 Gram rule applied to the exact spectrum, #{sigma_i^2 > n eps32 sigma_1^2}; the
directions that survive a worst-case half-grey-level perturbation (informational); and (c) the mean
cosine similarity of distinct samples. The printed table and cosines are shown beside the measured
rows in ``results/gradients/table_c1.md``. The first {{ item["control_batches"] }} batches of each
cell also get a negative control (last image replaced by the first: rank n - 1).
"""

from sigprop.base.store import atomic_path, load_frame
from sigprop.papers.gradients.batch_rank_tables import markdown, table_c1
from sigprop.pipeline.jobs import item_params, log_to_file

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = table_c1(load_frame(snakemake.input.batches))
with atomic_path(snakemake.output.csv) as tmp:
    table.to_csv(tmp, index=False)
with atomic_path(snakemake.output.md) as tmp:
    tmp.write_text(markdown(table, params.scale))
