"""Every network and its parts: the one MLP (``mlp``), the conv nets (``convnets``), DJB21's
networks (``djb21``), the normalization layers (``normalizations``) and initializations
(``initializations``) by name, the orthogonalizing transforms of initialized weights
(``orthogonalization``), and the one vocabulary of those names that config, code and docs share
(``vocabulary``).

May import: ``base``, ``engine``, ``datasets``."""
