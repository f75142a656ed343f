"""DJB21: Daneshmand, Joudaki, Bach, "Batch normalization orthogonalizes representations in deep
random networks", NeurIPS 2021 (seeds 003 and 004; Joudaki's thesis, ch. 2 and App. A).

Its items (``items.py``): the BN chain of DJB21 Eq. (1) and the orthogonality gap V (Figs. 1,
2a, 2b; Thesis Figs. 2.1-2.3), the Gaussian-input chain behind Thm. 1, Lemma 2, Cor. 3 and
Table 1, real-data networks (Fig. 5), Conjecture F.1 (Fig. 6), the Lyapunov one-step drift of
App. A.3-C (Lemma 4, Thm. 5, Lemmas 6-10, App. B.1) and the initialization of Sec. 5.2 and
App. E.
"""
