"""glibc's default allocator vs ``devices.heap_allocations`` on full-width conv nets (issue 25).

One SGD step (forward, backward, update) of a batch of 128 32x32 CIFAR-shaped images, then an
evaluation forward of 256 images: the work of one step and one log point of a paper-shape smoke
run (``tests/test_paper_smoke.py``). Networks: ResNet-50 at full width, cut to two Bottleneck
blocks per stage (depth 26, the smoke's cut in CI) and whole (depth 50), and VGG19 at full width,
with BN. ``default``: glibc as configured (blocks over 32 MiB mapped on each allocation and
unmapped on free); ``heap``: the same step inside ``heap_allocations()``. The two alternate in
one process, ``--reps`` times each, one thread; reported: the median seconds of each, their
ratio, and the process's CPU seconds in the kernel (page faults) per mode.

Usage:  python bench/host_allocator.py [--reps 3] [--nets resnet26,resnet50,vgg19]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pandas as pd  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from sigprop.engine.devices import heap_allocations  # noqa: E402
from sigprop.nets import convnets  # noqa: E402

torch.set_num_threads(1)
RESULTS = "bench/results/host_allocator.csv"
NETS = {
    "resnet26": lambda: convnets.build("resnet50", 26),
    "resnet50": lambda: convnets.build("resnet50", 50),
    "vgg19": lambda: convnets.build("vgg19"),
}


def step_and_log_point(net: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> None:
    """One SGD step on the first 128 images, then a forward of all 256 without gradients."""
    net.train()
    net.zero_grad(set_to_none=True)
    F.cross_entropy(net(x[:128]), y[:128]).backward()
    with torch.no_grad():
        for p in net.parameters():
            p -= 0.01 * p.grad
        net.eval()
        net(x)


def timed(net, x, y, heap: bool) -> tuple[float, float]:
    """Wall seconds and kernel CPU seconds of one ``step_and_log_point``."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    start = time.perf_counter()
    if heap:
        with heap_allocations():
            step_and_log_point(net, x, y)
    else:
        step_and_log_point(net, x, y)
    seconds = time.perf_counter() - start
    return seconds, resource.getrusage(resource.RUSAGE_SELF).ru_stime - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--nets", default="resnet26,resnet50,vgg19")
    args = parser.parse_args()
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(256, 3, 32, 32, generator=generator)
    y = torch.randint(0, 10, (256,), generator=generator)
    rows = []
    for name in args.nets.split(","):
        net = NETS[name]()
        step_and_log_point(net, x, y)  # warm-up: first-call costs out of both modes
        runs = {False: [], True: []}
        for _ in range(args.reps):
            for heap in (False, True):
                runs[heap].append(timed(net, x, y, heap))
        default_s, heap_s = (statistics.median(s for s, _ in runs[h]) for h in (False, True))
        rows.append({
            "net": name, "default_s": round(default_s, 2), "heap_s": round(heap_s, 2),
            "ratio": round(default_s / heap_s, 2),
            "default_kernel_s": round(statistics.median(k for _, k in runs[False]), 2),
            "heap_kernel_s": round(statistics.median(k for _, k in runs[True]), 2),
        })  # fmt: skip
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(RESULTS, index=False)
    print(table.to_markdown(index=False))


if __name__ == "__main__":
    main()
