"""Dan+20: Daneshmand, Kohler, Bach, Hofmann, Lucchi, "Batch normalization provably avoids rank
collapse for randomly initialised deep networks", NeurIPS 2020 (seeds 000-002)."""
