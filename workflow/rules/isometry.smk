"""Thesis ch. 4-5 (Joudaki 2024): isometry of normalization, Hermite kernel maps."""
