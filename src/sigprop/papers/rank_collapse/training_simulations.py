"""Dan+20's training experiments: every one is ``network_training`` of the training layer
(``training.experiment``) under its item's experiment id (``rank_collapse.<item>``).

It trains every figure's networks: ReLU MLPs of width 128 at several depths, each network a
normalization, an initialization and optionally rank pre-training (Algorithm 1) before SGD, over
a learning-rate grid and runs, with curves logged per epoch.

- Fig. 1: BN vs vanilla, depth 1-32; rank at init and training accuracy after training.
- Figs. 4, 11 (CIFAR-10) and 12 (Fashion-MNIST): pre-trained vanilla vs BN vs vanilla over
  epochs, for increasing depth.
- Fig. 6: depth 32: vanilla, pre-trained 25 and 75 iterations, BN with the default and the
  asymmetric init; training accuracy and r(H_L) over training.

The same function trains the conv nets (``nets.convnets``, ``architecture``):

- Figs. 5 (VGG19), 13 (ResNet-50), "breaking BN": BN with the default init, with the asymmetric
  init, and without centering; Fig. 7 (centering) draws two of Fig. 5's networks.
- Fig. 10 (VGG19), directional gradient vanishing: VGG19 with BN, and without BN trained with
  SGD, with a 100x step (``lr_scale``) and on uniform-noise images (``inputs``); the gradient
  alignment of the classification layer is a probe.
"""

from __future__ import annotations

from ...training.experiment import network_training

__all__ = ["network_training"]
