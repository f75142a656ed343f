"""sigprop: signal propagation in deep random networks with batch normalization.

Modules, one concept each:
    ops       normalizations and activations exactly as each seed defines them
    metrics   rank notions, orthogonality gap, cosine similarity (batched)
    seeding   random streams addressed by (experiment id, run index)
    chains    the batched random-network chain engine with on-the-fly observers
    stats     fits and confidence intervals shared by figures and claims
    store     atomic tensor cache with provenance sidecars
    claims    verdict records and the claims ledger
    plotting  one figure style, mean and 95% CI bands, deterministic files
    checks    the claims of each paper family, computed from plotted numbers
    data      datasets through torchvision, local sources first
"""

__version__ = "0.1.0"
