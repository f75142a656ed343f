"""Datasets: torchvision's dataset classes, local sources first (``data``), and random
stand-ins in the datasets' real file formats, for paper shapes without the data
(``generated_datasets``).

May import: ``base``, ``engine``."""
