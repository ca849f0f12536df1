"""The device a run computes on: `--device`, job.json's `device`, or LOUPE_DEVICE; else CUDA when there is one.

One choice per process, made by the command line before a command starts (`select`), read by every trainer and
predictor (`current`). Under torchrun each process takes the GPU of its LOCAL_RANK, so N processes on an N-GPU
host never share one. A named device that does not exist is refused (`device_unavailable`) with the devices that
do: a runner that asked for `cuda:1` must not silently train on the CPU for a day."""
import os
import re

from loupe_engine.events import EngineError

# torch is imported inside the functions: the command line imports this module before it sets the environment
# that picks torch's CPU kernels (cli._threads)

ENV = "LOUPE_DEVICE"
_PATTERN = re.compile(r"^(cpu|cuda)(?::(\d+))?$")
_chosen = {"device": None}


def available():
    """The devices this host offers, in words: 'cpu', 'cuda:0 (NVIDIA H100 80GB HBM3)', ..."""
    import torch
    out = ["cpu"]
    if torch.cuda.is_available():
        out += [f"cuda:{i} ({torch.cuda.get_device_name(i)})" for i in range(torch.cuda.device_count())]
    return out


def launched_world():
    """(rank, local rank, world size) when torchrun (or another launcher setting its variables) started this
    process as one of several; else None."""
    try:
        world = int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return None
    if world < 2 or "RANK" not in os.environ:
        return None
    return int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", os.environ["RANK"])), world


def resolve(name=None):
    """The torch.device for `name` ('cpu', 'cuda', 'cuda:1'; None or '' = LOUPE_DEVICE, else CUDA if present).

    'cuda' without an index is the process's own GPU: cuda:LOCAL_RANK under torchrun, else cuda:0."""
    import torch
    name = (name or os.environ.get(ENV) or "").strip().lower()
    launched = launched_world()
    if not name:
        name = "cuda" if torch.cuda.is_available() else "cpu"
    m = _PATTERN.match(name)
    if not m:
        raise EngineError("invalid_parameters", f"device {name!r}: give cpu, cuda or cuda:N (N = the GPU's index)")
    kind, index = m.group(1), m.group(2)
    if kind == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise EngineError("device_unavailable", f"device {name!r} is not available: this host has no CUDA device "
                                                f"torch can use (devices: {', '.join(available())})")
    if launched and index is not None:
        raise EngineError("invalid_parameters", f"device {name!r} under torchrun: each process takes the GPU of its "
                                                "local rank; give 'cuda' and choose the GPUs with CUDA_VISIBLE_DEVICES")
    if index is None:
        index = launched[1] if launched else 0
    index = int(index)
    if index >= torch.cuda.device_count():
        why = (f" (torchrun's local rank {launched[1]}: start at most as many processes per node as GPUs)"
               if launched and m.group(2) is None else "")
        raise EngineError("device_unavailable", f"device 'cuda:{index}' does not exist{why}; devices: "
                                                f"{', '.join(available())}")
    return torch.device("cuda", index)


def select(name=None):
    """Resolve and keep the process's device; CUDA becomes torch's current device (autocast, the memory figures
    and NCCL follow it). Returns it."""
    import torch
    dev = resolve(name)
    if dev.type == "cuda":
        torch.cuda.set_device(dev)
    _chosen["device"] = dev
    return dev


def current():
    """The selected device; a trainer or predictor used without the command line gets the default choice."""
    return _chosen["device"] or resolve(None)


def reset():
    """Forget the choice (the command line starts every command from the arguments it was given)."""
    _chosen["device"] = None
