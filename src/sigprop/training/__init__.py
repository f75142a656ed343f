"""The training layer: trainable models with explicit initializations, a training loop batched
over runs, probes of the hidden representations, and rank pre-training (Dan+20 Algorithm 1).

The at-initialization figures keep their batched chains (``sigprop.engine.chains``); these modules
are for the figures that train, and agree with the chains at initialization (tests).

May import: ``base``, ``engine``, ``datasets``, ``nets``."""
