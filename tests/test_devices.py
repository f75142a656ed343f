"""``devices.resolve_device``: names and ``torch.device`` objects, and clear errors."""

import pytest
import torch

from sigprop.devices import resolve_device


@pytest.mark.parametrize("name", ["cpu", torch.device("cpu")])
def test_cpu_by_name_or_device(name):
    assert resolve_device(name) == torch.device("cpu")


def test_auto_picks_cuda_only_when_present():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected


@pytest.mark.parametrize("name", ["gpu", "mps", torch.device("meta")])
def test_unknown_devices_are_named_in_the_error(name):
    with pytest.raises(ValueError, match="device must be"):
        resolve_device(name)


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
@pytest.mark.parametrize("name", ["cuda", "cuda:0", torch.device("cuda")])
def test_cuda_without_cuda_is_an_error(name):
    with pytest.raises(ValueError, match="is_available"):
        resolve_device(name)
