"""Meterez, Joudaki et al., "Towards training without depth limits: batch normalization without
gradient explosion" (ICLR 2024) = Joudaki's thesis ch. 6 and app. C (seed 004): gradients of BN
networks at initialization, the isometry gap, the BN Jacobian lemmas and activation shaping.

``items.py`` lists every simulation, figure, table and theorem check; the family-only
mathematics lives beside it (``bn_mlp``, ``shaping``, ``isometry_decay``, ``bn_jacobian``).
"""
