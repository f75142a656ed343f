"""The base every layer stands on: what an item is (``registry``: the paper items, their
config references, functions by name), what a job writes (``store``: results with provenance
sidecars, atomic files), what it reads (``config``: merging and the cross-key checks), and what a
long job keeps to resume where it stopped (``checkpoints``).

May import: no other sigprop package (the lowest layer)."""
