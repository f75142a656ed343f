"""Prepare one dataset under data.root; write the marker the real-data simulations depend on."""

from sigprop.base import store
from sigprop.datasets import data
from sigprop.pipeline.jobs import log_to_file

log = log_to_file(snakemake.log[0])
settings = snakemake.params.data
record = data.prepare(
    snakemake.wildcards.dataset,
    settings["root"],
    download=settings["download"],
    apt=settings["apt"],
    system_sources=settings["system_sources"],
    timeout_s=settings["timeout_s"],
)
log.info("%s ready under %s (%s)", record["title"], record["root"], record["route"])
store.write_json(snakemake.output.marker, record)
