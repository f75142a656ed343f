"""The conv nets: those of Dan+20 Figs. 5, 7, 10, 13 (torchvision's VGG19 and ResNet-50, adapted
to small images, with a width multiplier and a normalization switch), of DJB21 Fig. 7 (the
AlexNet-derived nets of DJB21 Table 3, ``djb21_convnet``, of any number of convolutions) and
DJB21 Fig. 5b's ReLU-first ``ConvNet`` (at the end of this module).

Adaptations (the seeds name the networks, not their CIFAR variants; depth and layer order are
torchvision's, never changed):

- the first convolution takes ``in_channels`` (1 for Fashion-MNIST, 3 for CIFAR);
- VGG19: the adaptive average pool goes to 1x1 instead of 7x7 (a 32x32 image is 1x1 after the
  five max-pools), so the classifier's first Linear takes 512 channels, not 512 x 49 copies;
  dropout 0 (the seeds do not mention it, and it would randomize the rank probe);
- ResNet-50: the 7x7 stride-2 stem and its max-pool become a 3x3 stride-1 convolution and the
  identity, the usual CIFAR stem (a 32x32 image would be 1x1 before the last stage otherwise);
- ``width_multiplier`` scales every channel count and the classifier's hidden width (quick
  scale: 1/8 or 1/16 on the CPU); 1 is the full network.

``norm``: ``batch_norm`` (torch's BN), ``batch_norm_uncentered`` (every BN swapped by
``nets.normalizations.uncenter_batch_norm``), ``none`` (VGG19 without BN, Fig. 10).

Each network is a ``Classifier``: ``body`` (the torchvision network whose last Linear is the
identity) and ``readout`` (that Linear, W_{L+1} of Dan+20 Eq. (95)), so ``forward(x,
output="last_hidden")`` gives H_L, the input of the classification layer, as the MLPs do.
Initialize with ``nets.initializations.init_weights`` after construction: the constructors draw
Kaiming weights that the seeds' inits replace.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torchvision.models import resnet, vgg

from ..base.config import check_positive_integers
from .initializations import xavier_normal_from
from .normalizations import uncenter_batch_norm

__all__ = [
    "ARCHITECTURES",
    "CONV_NORMS",
    "CUT_DEPTHS",
    "DEPTHS",
    "FIG5_NORMS",
    "PADDING_MODES",
    "RESNET_BLOCKS",
    "Classifier",
    "ConvNet",
    "build",
    "djb21_convnet",
    "resnet50",
    "vgg19",
]

CONV_NORMS = ("batch_norm", "batch_norm_uncentered", "none")


def _scaled(channels: int, multiplier: float) -> int:
    return max(1, round(channels * multiplier))


class Classifier(nn.Module):
    """``readout(body(x))``; ``forward(x, output="last_hidden")`` returns body(x) = H_L (N, d)."""

    def __init__(self, body: nn.Module, readout: nn.Linear, depth: int):
        super().__init__()
        self.body, self.readout, self.depth = body, readout, depth

    def forward(self, x: Tensor, output: str = "logits") -> Tensor:
        h = self.body(x)
        if output == "last_hidden":
            return h
        if output != "logits":
            raise ValueError(f"a conv net's output is logits or last_hidden, got {output!r}")
        return self.readout(h)


def _split(net: nn.Module, attribute: str, depth: int) -> Classifier:
    """Detach the last Linear (``net.<attribute>``, or the last of a Sequential) as readout."""
    holder = getattr(net, attribute)
    if isinstance(holder, nn.Sequential):
        readout, holder[-1] = holder[-1], nn.Identity()
    else:
        readout = holder
        setattr(net, attribute, nn.Identity())
    return Classifier(net, readout, depth)


def _normalized(net: nn.Module, norm: str) -> nn.Module:
    if norm not in CONV_NORMS:
        raise ValueError(f"a conv net's norm must be one of {CONV_NORMS}, got {norm!r}")
    return uncenter_batch_norm(net) if norm == "batch_norm_uncentered" else net


def vgg19(
    norm: str = "batch_norm", in_channels: int = 3, n_classes: int = 10,
    width_multiplier: float = 1.0,
) -> Classifier:  # fmt: skip
    """torchvision's VGG19 (configuration "E": 16 convolutions, 3 Linear; with BN after every
    convolution unless ``norm`` is ``none``), adapted as the module docstring says."""
    cfg = [v if v == "M" else _scaled(v, width_multiplier) for v in vgg.cfgs["E"]]
    features = vgg.make_layers(cfg, batch_norm=norm != "none")
    first = features[0]
    features[0] = nn.Conv2d(in_channels, first.out_channels, 3, padding=1)
    with torch.device("meta"):  # its 25088 x 4096 classifier, replaced below: never allocated
        net = vgg.VGG(features, num_classes=n_classes, init_weights=False, dropout=0.0)
    net.avgpool = nn.AdaptiveAvgPool2d(1)
    hidden, channels = _scaled(4096, width_multiplier), cfg[-2]
    old = net.classifier
    net.classifier = nn.Sequential(
        nn.Linear(channels, hidden), old[1], old[2], nn.Linear(hidden, hidden), old[4], old[5],
        nn.Linear(hidden, n_classes),
    )  # fmt: skip
    return _split(_normalized(net, norm), "classifier", depth=DEPTHS["vgg19"])


class _ScaledResNet(resnet.ResNet):
    """torchvision's ResNet with every stage's width times ``multiplier`` and the CIFAR stem."""

    def __init__(self, layers, multiplier: float, in_channels: int, n_classes: int, norm_layer):
        self._multiplier, self._first_stage = multiplier, True
        super().__init__(resnet.Bottleneck, layers, num_classes=n_classes, norm_layer=norm_layer)
        stem = _scaled(64, multiplier)
        self.conv1 = nn.Conv2d(in_channels, stem, 3, stride=1, padding=1, bias=False)
        self.bn1 = norm_layer(stem)
        self.maxpool = nn.Identity()
        self.fc = nn.Linear(_scaled(512, multiplier) * resnet.Bottleneck.expansion, n_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        if self._first_stage:  # the stem's width, which the parent fixes at 64
            self.inplanes, self._first_stage = _scaled(64, self._multiplier), False
        return super()._make_layer(block, _scaled(planes, self._multiplier), blocks, stride, dilate)


RESNET_BLOCKS = {50: (3, 4, 6, 3), 26: (2, 2, 2, 2)}
"""Bottleneck blocks per stage of ``resnet50`` at each depth (2 + 3 x blocks weighted layers):
ResNet-50's (He et al. 2016, Table 1), and two per stage, the paper-shape smoke's depth cut
(``paper_smoke``): each stage's first block (its stride and projection shortcut) and one
identity-shortcut block, so every layer shape of ResNet-50 is kept."""


def resnet50(
    norm: str = "batch_norm", in_channels: int = 3, n_classes: int = 10,
    width_multiplier: float = 1.0, depth: int = 50,
) -> Classifier:  # fmt: skip
    """torchvision's ResNet-50 (Bottleneck blocks [3, 4, 6, 3]), adapted as the module
    docstring says; ``norm`` none puts the identity where BN was. ``depth`` 26: two blocks per
    stage (``RESNET_BLOCKS``), for smoke runs only; the seeds' network is depth 50."""
    if depth not in RESNET_BLOCKS:
        raise ValueError(f"resnet50's depth is one of {sorted(RESNET_BLOCKS)}, got {depth}")
    norm_layer = (lambda channels: nn.Identity()) if norm == "none" else nn.BatchNorm2d
    blocks = list(RESNET_BLOCKS[depth])
    net = _ScaledResNet(blocks, width_multiplier, in_channels, n_classes, norm_layer)
    return _split(_normalized(net, norm), "fc", depth=depth)


def djb21_convnet(
    depth: int = 20, norm: str = "none", in_channels: int = 3, n_classes: int = 10,
    width_multiplier: float = 1.0, dropout: float = 0.0,
) -> Classifier:  # fmt: skip
    """DJB21 App. G, Table 3: ``depth`` 3x3 convolutions (20 or 80 in Fig. 7) with ReLUs,
    AlexNet-derived: Conv(C, 64, stride 2) + MaxPool + ReLU, Conv(64, 192) + MaxPool + ReLU,
    Conv(192, 256) + Conv(256, 256) + ReLU, {Conv(256, 256) + ReLU} x (depth - 4), MaxPool +
    ReLU, Dropout + Linear(1024, 4096) + ReLU, Dropout + Linear(4096, 4096) + ReLU, read-out
    Linear(4096, classes). Table 3 as printed has no stride; the first convolution's stride 2
    is the authors' code's, the only reading in which a 32 x 32 image gives the table's 1024
    features (256 x 2 x 2). Padding 1 everywhere; no BN (the paper's nets are vanilla).
    ``dropout``: the table's 0.5 (active in training in the code); default 0 (ours: dropout
    randomizes the probes, and the claim compares inits, not regularizers). For 32 x 32 images
    (the read-out of the conv stack is c x 2 x 2)."""
    if depth < 4:
        raise ValueError(f"DJB21 Table 3 nets have at least 4 convolutions, got depth {depth}")
    if norm != "none":
        raise ValueError(f"DJB21 Table 3 nets have no normalization, got norm {norm!r}")
    c1, c2, c3 = (_scaled(c, width_multiplier) for c in (64, 192, 256))
    hidden = _scaled(4096, width_multiplier)
    layers = [
        nn.Conv2d(in_channels, c1, 3, stride=2, padding=1), nn.MaxPool2d(2), nn.ReLU(),
        nn.Conv2d(c1, c2, 3, padding=1), nn.MaxPool2d(2), nn.ReLU(),
        nn.Conv2d(c2, c3, 3, padding=1), nn.Conv2d(c3, c3, 3, padding=1), nn.ReLU(),
    ]  # fmt: skip
    for _ in range(depth - 4):
        layers += [nn.Conv2d(c3, c3, 3, padding=1), nn.ReLU()]
    layers += [
        nn.MaxPool2d(2), nn.ReLU(), nn.Flatten(),
        nn.Dropout(dropout), nn.Linear(c3 * 2 * 2, hidden), nn.ReLU(),
        nn.Dropout(dropout), nn.Linear(hidden, hidden), nn.ReLU(),
    ]  # fmt: skip
    body = nn.Sequential(*layers)
    return Classifier(body, nn.Linear(hidden, n_classes), depth)


ARCHITECTURES = {"vgg19": vgg19, "resnet50": resnet50, "djb21_convnet": djb21_convnet}
"""Conv architecture name -> constructor."""

DEPTHS = {"vgg19": 19, "resnet50": 50}
"""The depth in each fixed network's name (weighted layers along the longest path); the
others take ``depth`` (convolutions)."""

CUT_DEPTHS = {"resnet50": 26}
"""A fixed network's depth cut for smoke runs (``RESNET_BLOCKS``), the only other depth its
constructor takes."""


def build(architecture: str, depth: int | None = None, **kwargs) -> Classifier:
    """``ARCHITECTURES[architecture](**kwargs)`` (with ``depth`` where the architecture has no
    fixed depth, or its smoke cut ``CUT_DEPTHS``), naming the choices on a bad name."""
    if architecture not in ARCHITECTURES:
        raise ValueError(
            f"architecture must be one of {sorted(ARCHITECTURES)}, got {architecture!r}"
        )
    if architecture in DEPTHS:
        if depth in (None, DEPTHS[architecture]):
            return ARCHITECTURES[architecture](**kwargs)
        cut = CUT_DEPTHS.get(architecture)
        if depth != cut:
            smoke = f" (a smoke run's cut: {cut})" if cut else ""
            raise ValueError(f"{architecture} has depth {DEPTHS[architecture]}{smoke}, not {depth}")
    return ARCHITECTURES[architecture](depth=depth, **kwargs)


# --- DJB21 Fig. 5b: the ReLU-first conv net of the authors' code ---------------------------------

FIG5_NORMS = ("batch_norm", "none")
"""``norm`` of the DJB21 Fig. 5 nets: torch BatchNorm after each Linear/Conv, or none."""

PADDING_MODES = ("reflect", "zeros", "replicate", "circular")
"""``nn.Conv2d`` padding modes. DJB21's code uses 'reflect'; its caption says zero padding."""


def check_norm(norm: str) -> None:
    """A ValueError unless ``norm`` is one of ``FIG5_NORMS``."""
    if norm not in FIG5_NORMS:
        raise ValueError(f"norm must be one of {FIG5_NORMS}, got {norm!r}")


class _Blocks(nn.Module):
    """A stack of blocks with access to every block's input."""

    blocks: nn.ModuleList

    def forward(self, x: Tensor) -> Tensor:
        for block in self.blocks:
            x = block(x)
        return x

    def representations(self, x: Tensor, include_output: bool = False) -> list[Tensor]:
        """The input of each block, in order: ``[x, block_1(x), ...]``.

        Args:
            x: a batch, samples first, as ``forward`` takes it.
            include_output: also append the last block's output.
        Returns:
            ``depth`` tensors (``depth + 1`` with ``include_output``); the first is ``x`` itself.
        """
        out = []
        for block in self.blocks:
            out.append(x)
            x = block(x)
        if include_output:
            out.append(x)
        return out


class ConvNet(_Blocks):
    """DJB21 Fig. 5b: ``depth`` blocks ReLU -> Conv2d(k, stride 1, bias=False) -> BN2d | Identity.

    Padding k // 2 keeps the maps equally sized. The authors' ``default_convnet`` takes
    ``padding_mode='zero'`` but never forwards it, so their nets pad with 'reflect' (the
    default here); the caption says zero padding ('zeros').

    Args:
        in_channels: channels of the input images (3 for CIFAR-10, 1 for Fashion-MNIST).
        channels: channels of every hidden layer (100 in the paper).
        depth: the number of blocks (30 in the paper).
        kernel_size: odd kernel size (3 in the paper).
        norm: "batch_norm" (torch ``BatchNorm2d``) or "none".
        padding_mode: an ``nn.Conv2d`` padding mode.
        gain: the ``xavier_normal_`` gain; the code's is 1 (``calculate_gain("conv2d")``).
        generator: CPU generator of the initial weights.
    """

    def __init__(
        self,
        in_channels: int,
        channels: int,
        depth: int,
        kernel_size: int = 3,
        norm: str = "batch_norm",
        padding_mode: str = "reflect",
        gain: float = 1.0,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        check_norm(norm)
        check_positive_integers(
            in_channels=in_channels, channels=channels, depth=depth, kernel_size=kernel_size
        )
        if kernel_size % 2 == 0:
            raise ValueError(f"kernel_size must be odd to keep maps equal sized, got {kernel_size}")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {PADDING_MODES}, got {padding_mode!r}")
        blocks = []
        for layer in range(depth):
            conv = nn.Conv2d(
                in_channels if layer == 0 else channels,
                channels,
                kernel_size,
                stride=1,
                padding=kernel_size // 2,
                padding_mode=padding_mode,
                bias=False,
            )
            xavier_normal_from(conv.weight, gain, generator)
            bn = nn.BatchNorm2d(channels) if norm == "batch_norm" else nn.Identity()
            blocks.append(nn.Sequential(nn.ReLU(), conv, bn))
        self.blocks = nn.ModuleList(blocks)
        self.norm = norm
