"""sigprop: signal propagation in deep random networks with batch normalization.

The code is in packages by concept, in layers. A module imports from its own package and from
the layers below it, never from a layer above (``tests/test_layers.py`` reads this list and
checks every import); each package's docstring says what lives there and what it may import.

Layers, lowest first:
    base      the vocabulary every layer shares: the item registry, the result store with
              provenance, the config and its checks, checkpoints of resumable jobs
    engine    the mathematics: ops, metrics, stats, random streams, the batched chains,
              their inputs, devices
    datasets  datasets through torchvision (local sources first) and generated stand-ins
    nets      networks and their parts, by name
    training  the training loop batched over runs, probes, pre-training, curves
    verdicts  claims and their verdicts, the ledger, findings, the figure style
    papers    the paper families, one package each
    pipeline  what runs the items: the jobs' generic steps, placement from the cost
              table, code fingerprints, run records, job times, decide, config docs
    cli       the ``sigprop`` command (a module)
"""

__version__ = "0.1.0"
