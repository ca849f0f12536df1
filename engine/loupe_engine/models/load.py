"""Rebuild a trained network (detector, classifier or segmenter) from a Loupe checkpoint."""
import os

import torch

from loupe_engine.events import EngineError
from loupe_engine.models.backbone import LEGACY
from loupe_engine.models.detector import Detector


def load_checkpoint(path, device="cpu"):
    if not path or not os.path.isfile(path):
        raise EngineError("model_missing", f"model checkpoint not found: {path}")
    try:
        ck = torch.load(path, map_location=device)
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
