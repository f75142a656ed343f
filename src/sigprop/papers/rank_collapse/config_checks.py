"""Cross-key checks of the ``rank_collapse`` config section (Dan+20), before any job runs."""

from __future__ import annotations

from collections.abc import Mapping

from ...config import ConfigError

__all__ = ["check_config"]


def check_config(config: Mapping) -> None:
    """Raise ``ConfigError`` naming the keys if related ``rank_collapse`` values disagree.

    ``bn_chain.taus`` must hold 0.5 (Fig. 3a plots rank_1/2) and ``bn_chain.burn_in`` must not
    exceed ``bn_chain.depth``.
    """
    bn_chain = config["rank_collapse"]["bn_chain"]
    if 0.5 not in bn_chain["taus"]:
        raise ConfigError(
            f"rank_collapse.bn_chain.taus {bn_chain['taus']} must include 0.5: Fig. 3a plots "
            "rank_1/2"
        )
    if bn_chain["burn_in"] > bn_chain["depth"]:
        raise ConfigError(
            f"rank_collapse.bn_chain.burn_in = {bn_chain['burn_in']} exceeds "
            f"rank_collapse.bn_chain.depth = {bn_chain['depth']}"
        )
