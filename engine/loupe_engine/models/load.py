"""Rebuild a trained network (detector, classifier or segmenter) from a Loupe checkpoint."""
import collections
import os
import pickle

import torch

from loupe_engine.events import EngineError
from loupe_engine.models.backbone import LEGACY
from loupe_engine.models.detector import Detector


def _allowed_globals():
    """What a checkpoint's pickle may name: the classes and functions torch.load(weights_only=True) allows
    (tensors, parameters, storages, dtypes, torch.Size, OrderedDict and the tensor rebuild functions), taken from
    torch itself where it says, with the same list written out for a torch that does not."""
    try:
        from torch._weights_only_unpickler import _get_allowed_globals
        allowed = dict(_get_allowed_globals())
    except ImportError:  # pragma: no cover - other torch versions
        allowed = {"collections.OrderedDict": collections.OrderedDict, "torch.Size": torch.Size,
                   "torch.Tensor": torch.Tensor, "torch.nn.parameter.Parameter": torch.nn.Parameter}
        for f in ("_rebuild_parameter", "_rebuild_tensor", "_rebuild_tensor_v2"):
            allowed[f"torch._utils.{f}"] = getattr(torch._utils, f)
    for dt in (torch.bfloat16, torch.float16, torch.float32, torch.float64, torch.uint8, torch.int8, torch.int16,
               torch.int32, torch.int64, torch.bool):
        allowed[str(dt)] = dt
    return allowed


class _WeightsUnpickler(pickle.Unpickler):
    """pickle.Unpickler that resolves no global outside _allowed_globals(): every way a pickle runs code (REDUCE,
    NEWOBJ, BUILD, extension codes) needs a callable that only find_class can hand it, so a crafted file fails
    here before any of its own code runs."""

    def find_class(self, module, name):
        key = f"{module}.{name}"
        allowed = _ALLOWED.get(key)
        if allowed is None:
            raise pickle.UnpicklingError(f"'{key}' is not allowed in a checkpoint")
        return allowed


class _WeightsPickle:
    """The pickle module torch.load uses (its `pickle_module`): restricted unpickling only."""
    Unpickler = _WeightsUnpickler
    __name__ = "loupe_weights_pickle"

    @staticmethod
    def load(file, **kwargs):
        return _WeightsUnpickler(file, **kwargs).load()


_ALLOWED = _allowed_globals()
# torch >= 2.0: its own weights_only loader reads floats; torch 1.13's does not, and its torch.load ignores a
# `pickle_module` unless weights_only is set, so there the zip archive is read with torch's loader and ours.
_TORCH_WEIGHTS_ONLY = int(torch.__version__.split(".")[0]) >= 2


def _load_restricted(path, device):
    if _TORCH_WEIGHTS_ONLY:  # pragma: no cover - torch 2
        return torch.load(path, map_location=device, weights_only=True)
    from torch import serialization
    with open(path, "rb") as f:
        if not serialization._is_zipfile(f):
            # the pre-1.6 format runs several unpicklers over the raw file; the engine never wrote it
            raise pickle.UnpicklingError("not a zip-format torch checkpoint (the old raw-pickle format is not read)")
        with serialization._open_zipfile_reader(f) as zf:
            if serialization._is_torchscript_zip(zf):
                raise pickle.UnpicklingError("a TorchScript archive, not a checkpoint")
            return serialization._load(zf, device, _WeightsPickle, encoding="utf-8")


def read_checkpoint(path, device="cpu", code="model_invalid"):
    """torch.load restricted to weights, as `weights_only=True` is: tensors, dicts, lists, tuples, numbers,
    strings and the torch types a state dict needs; a pickle that names any other class or function (a crafted
    file that would run code when unpickled, or a checkpoint holding foreign objects) is refused before anything
    in it runs, as EngineError `code`. torch 1.13's own weights_only loader cannot be used: it does not know the
    pickle opcode of a Python float (BINFLOAT, added in torch 2.0), and every checkpoint holds floats (its config,
    its history). Every checkpoint the engine writes loads here (tests/test_safe_load.py)."""
    try:
        return _load_restricted(path, device)
    except pickle.UnpicklingError as e:
        raise EngineError(code, f"{os.path.basename(path)} is refused as a checkpoint: {e} (a Loupe checkpoint "
                                "holds only tensors, numbers and text; nothing else in it is ever unpickled)")


def load_checkpoint(path, device="cpu"):
    if not path or not os.path.isfile(path):
        raise EngineError("model_missing", f"model checkpoint not found: {path}")
    try:
        ck = read_checkpoint(path, device)
    except EngineError:
        raise
    except Exception as e:  # a truncated or foreign file
        raise EngineError("model_invalid", f"{path} is not a Loupe checkpoint: {e}")
    if not isinstance(ck, dict) or "names" not in ck or "model" not in ck:
        raise EngineError("model_invalid", f"{path} is not a Loupe checkpoint")
    model = build_model(ck)
    model.load_state_dict(ck["model"])
    return model.to(device).eval(), ck


def build_model(ck):
    """The untrained network a checkpoint's weights belong to, from its task and metadata."""
    task, nc, arch = ck.get("task"), len(ck["names"]), checkpoint_arch(ck)
    if task == "classify":
        from loupe_engine.models.classifier import Classifier
        return Classifier(nc, ck["size"], multi_label=ck.get("multi_label", False), arch=arch)
    if task == "segment":
        from loupe_engine.models.segmenter import Segmenter
        return Segmenter(nc, ck["size"], overlap=ck.get("overlap_mask", True), arch=arch)
    return Detector(nc, ck["size"], task == "obb", arch=arch)


def checkpoint_arch(ck):
    """The architecture tuple a checkpoint was trained with: recorded since p was deepened; a p checkpoint written
    before that is the old p, and other sizes have not changed."""
    arch = ck.get("arch") or LEGACY.get(ck["size"])
    return tuple(arch) if arch else None
