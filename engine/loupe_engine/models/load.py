"""Rebuild a trained detector from a Loupe checkpoint."""
import os

import torch

from loupe_engine.events import EngineError
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
    model = Detector(len(ck["names"]), ck["size"], ck["task"] == "obb")
    model.load_state_dict(ck["model"])
    return model.to(device).eval(), ck
