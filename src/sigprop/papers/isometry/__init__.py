"""Joudaki 2024: A. Joudaki, "On a Mathematical Understanding of Deep Neural Networks", PhD thesis,
ETH Zurich (seed 004), ch. 4 (isometry of normalization: Def. 4.1, Lemma 4.2, Thm. 4.3, Cors.
4.4, 4.5, Fig. 4.1) and ch. 5 (Hermite kernel maps: Tables 5.1, 5.2, Thms. 5.8, 5.11, 5.15,
Props. 5.1, 5.2, Figs. 5.1, 5.2)."""
