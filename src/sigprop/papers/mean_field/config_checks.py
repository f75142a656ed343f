"""Relations between the config keys of the mean-field family that the schema cannot express."""

from __future__ import annotations

from collections.abc import Mapping

from ...base.config import ConfigError

__all__ = ["check_config"]


def check_config(config: Mapping) -> None:
    """Raise ``ConfigError`` naming the keys if the ``mean_field`` items disagree.

    Figures 3.1-3.4 read batch sizes (Fig. 3.4: ``fig3_4.batch_sizes``) and layers that the
    ``gram_chain`` simulation must hold;
    Fig. 3.1 compares ``no_bn_linear`` with a BN network; windows of the theorem items must fit
    in their depths.

    Args:
        config: the whole config (its ``mean_field`` section is checked, if present).
    """
    mf = config.get("mean_field")
    if mf is None:
        return
    chain = mf["gram_chain"]
    if min(chain["widths"]) < max(chain["batch_sizes"]):
        raise ConfigError(
            f"mean_field.gram_chain.widths {chain['widths']} has a width below the largest batch "
            f"size in mean_field.gram_chain.batch_sizes {chain['batch_sizes']}: the n x n Gram of "
            "a d x n layer with d < n is singular, so G_l and its distance to G_* are not finite"
        )
    for fig in ("fig3_1", "fig3_2", "fig3_3"):
        if mf[fig]["batch_size"] not in chain["batch_sizes"]:
            raise ConfigError(
                f"mean_field.{fig}.batch_size = {mf[fig]['batch_size']} is not simulated: add it "
                f"to mean_field.gram_chain.batch_sizes {chain['batch_sizes']}"
            )
    missing = sorted(set(mf["fig3_4"]["batch_sizes"]) - set(chain["batch_sizes"]))
    if missing:
        raise ConfigError(
            f"mean_field.fig3_4.batch_sizes has n = {missing} that are not simulated: add them to "
            f"mean_field.gram_chain.batch_sizes {chain['batch_sizes']}"
        )
    for fig, key in (("fig3_2", "last_layer"), ("fig3_3", "layer"), ("fig3_4", "layer")):
        if mf[fig][key] > chain["depth"]:
            raise ConfigError(
                f"mean_field.{fig}.{key} = {mf[fig][key]} exceeds mean_field.gram_chain.depth = "
                f"{chain['depth']}"
            )
    if not mf["fig3_2"]["plateau_from"] < mf["fig3_2"]["last_layer"] - 1:
        raise ConfigError(
            "mean_field.fig3_2.plateau_from must be below mean_field.fig3_2.last_layer - 1 "
            "(the plateau slope needs >= 3 layers)"
        )
    if "no_bn_linear" not in chain["networks"] or len(chain["networks"]) < 2:
        raise ConfigError(
            "mean_field.gram_chain.networks must contain no_bn_linear and a bn_ network "
            "(Fig. 3.1 compares them)"
        )
    fp = mf["fixed_point"]
    if fp["map_average"] > fp["map_iterations"]:
        raise ConfigError(
            "mean_field.fixed_point.map_average exceeds mean_field.fixed_point.map_iterations"
        )
    if fp["chain_burn_in"] >= fp["chain_depth"]:
        raise ConfigError(
            "mean_field.fixed_point.chain_burn_in must be below mean_field.fixed_point.chain_depth"
        )
    if "mixing" in mf and mf["mixing"]["merged_from"] > mf["mixing"]["depth"]:
        raise ConfigError("mean_field.mixing.merged_from must not exceed mean_field.mixing.depth")
