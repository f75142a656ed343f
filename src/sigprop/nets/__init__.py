"""Networks and their parts: the one trainable MLP (``mlp``), the normalization layers
(``normalizations``) and initializations (``initializations``) by name, and the one vocabulary
of those names that config, code and docs share (``vocabulary``)."""
