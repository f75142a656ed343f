"""Mean-field Gram dynamics of BN-MLPs at finite width: Joudaki, PhD thesis (ETH Zurich, 2024),
ch. 3 and app. B (with JDB23a); seed 004.

Modules: ``gram_dynamics`` (the chain of Eq. (3.1), Gram Eq. (3.2), mean-field map Eq. (3.3) and
its fixed point G_*, Eq. (B.36)), ``simulations`` (the Gram chain of Figs. 3.1-3.4), ``judges``
(claims of Figs. 3.1-3.4), ``fixed_point``, ``tails`` and ``mixing`` (theorem items: measure) with
``fixed_point_judges``, ``tail_judges`` and ``mixing_judges`` (their torch-free judges),
``config_checks`` and ``items`` (the item table).
"""
