"""Thesis ch. 6 and app. C (Meterez, Joudaki et al. 2024): gradients of BN networks at initialization."""
