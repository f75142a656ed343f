"""The mathematics, the same code on the CPU and on CUDA: normalizations and activations as
each seed defines them (``ops``), rank and orthogonality measures (``metrics``,
``gram_isometry``, ``trace_identities``), fits and confidence intervals (``stats``), random
streams addressed by (experiment id, run) (``seeding``), the batched random-network chains with
their observers (``chains``), the input batches the seeds specify (``inputs``), device and dtype
selection (``devices``).

May import: ``base``."""
