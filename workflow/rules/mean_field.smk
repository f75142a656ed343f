"""Thesis ch. 3 and app. B (Joudaki 2024): mean-field Gram dynamics of BN-MLPs at finite width."""
