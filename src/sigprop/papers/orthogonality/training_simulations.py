"""DJB21's training experiments on the training layer (``training.experiment.network_training``).

- ``depth_orthogonality``, DJB21 Figs. 3, 4 (Thesis Figs. 2.4, 2.5) and Thesis Fig. A.1:
  bias-free ReLU MLPs without BN at several depths, Xavier (gain sqrt 2, the authors' code),
  iteratively orthogonalized (Eq. (6)), with orthogonal weights (App. A.5 (i)) and with adaptive
  gradient clipping (Eq. (A.21)), from the same Xavier draw; the orthogonality gap V(H_L)
  (Eq. (2)) and the training loss per epoch.
- ``deep_convnets``, DJB21 Fig. 7 (App. G): the conv nets of Table 3 with 20 and 80
  convolutions, Xavier vs the orthogonalizing init of App. G (Eq. (21) with Eq. (6)).
"""

from __future__ import annotations

from ...training.experiment import named_experiment

__all__ = ["deep_convnets", "depth_orthogonality"]

depth_orthogonality = named_experiment(
    "orthogonality.depth_orthogonality", "DJB21 Figs. 3, 4; Thesis Fig. A.1", __name__
)
deep_convnets = named_experiment("orthogonality.deep_convnets", "DJB21 Fig. 7", __name__)
