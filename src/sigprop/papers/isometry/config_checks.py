"""Cross-key checks of the isometry family's config (beyond the schema)."""

from __future__ import annotations

from collections.abc import Mapping

from ...base.config import ConfigError

__all__ = ["check_config"]


def check_config(config: Mapping) -> None:
    """Thesis Figs. 5.1 / 5.2: one rho_0 per plotted activation.

    Args:
        config: the whole config; a family section that is absent is not checked.
    Raises:
        ConfigError: naming the full key paths.
    """
    iso = config.get("isometry", {})
    for item in ("fig5_1", "fig5_2"):
        if item not in iso:
            continue
        cfg = iso[item]
        if len(cfg["rho0"]) != len(cfg["activations"]):
            raise ConfigError(
                f"isometry.{item}.rho0 has {len(cfg['rho0'])} entries but "
                f"isometry.{item}.activations has {len(cfg['activations'])}: one rho_0 per row"
            )
