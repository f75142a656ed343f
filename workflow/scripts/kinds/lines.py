"""{{ snakemake.params.source }}: {{ snakemake.params.shows }}.

{% set p = snakemake.params %}{{ snakemake.config["scale"] | capitalize }} scale.
{{ p.y | replace("_", " ") | capitalize }} against {{ p.x | replace("_", " ") }}{% if p.hue is
defined %}, one line per {{ p.hue | replace("_", " ") }}{% endif %}: mean and 95% CI over runs.
The simulation ({{ snakemake.wildcards.family }}): {% for key, value in p.setup.items() %}{{ key }}
{{ value }}{{ "; " if not loop.last else "." }}{% endfor %}
"""

from sigprop.base import store
from sigprop.pipeline.jobs import item_params, log_to_file
from sigprop.verdicts import plotting

log_to_file(snakemake.log[0])
params = item_params(snakemake)
table = store.load_frame(snakemake.input[0])  # the simulation's dims and values, long form
table.to_csv(snakemake.output.csv, index=False)

fig, ax = plotting.figure()
plotting.mean_ci(ax, table, x=params.x, y=params.y, hue=getattr(params, "hue", None))
ax.set(xlabel=params.x.replace("_", " "), ylabel=params.y.replace("_", " "))
ax.set_yscale(getattr(params, "yscale", "linear"))
plotting.save(fig, snakemake.output.pdf, snakemake.output.png)
