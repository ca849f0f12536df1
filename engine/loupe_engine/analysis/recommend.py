"""Recommendations: training parameters derived from the figures by general rules (engine/AGENT.md, Analysis),
never from one dataset's results. Each has its message values (`params`) and what it sets (`set`)."""
import math

import numpy as np

from loupe_engine.analysis.findings import RARE_INSTANCES, names_list
from loupe_engine.analysis.stats import TINY_PX, box_sizes

SIZES = range(320, 1280 + 1, 32)  # whole-image training sizes worth their cost
TILE = 640                       # tile side when the images must be trained at more than 1280 px
SHORT_PERCENTILE = 10            # this share of boxes may stay under TINY_PX
BALANCE_RATIO = 5
RECT_ASPECT, RECT_MIN_IMAGES = 1.6, 500
MODEL_N_BELOW = 500


def _mult32(v):
    return int(math.ceil(v / 32) * 32)


def _tiny_share(short_rel, size):
    return round(100 * float((short_rel * size < TINY_PX).mean()), 1)


def image_size(boxes, imgsz):
    """imgsz, or tiling: the smallest whole-image size at which the 10th percentile of the boxes' shorter sides
    reaches TINY_PX, capped by the images' native long side (upscaling adds no detail). When that size is above
    1280 and the images hold the detail (native long side above 1280), train on TILE-px tiles of the images at
    the size needed instead: a whole image at that size would cost (size/1280)² more per step."""
    kept, w, h, W, H, _ = box_sizes(boxes, imgsz)
    if not kept:
        return []
    long_side = np.maximum(W, H)
    short_rel = np.minimum(w, h) / np.maximum(long_side, 1)
    need = TINY_PX / max(float(np.percentile(short_rel, SHORT_PERCENTILE)), 1e-9)
    cap = _mult32(float(np.median(long_side)))
    whole = next((s for s in SIZES if s >= need), None)
    params = {"share": _tiny_share(short_rel, imgsz), "px": TINY_PX, "at": imgsz, "native": cap}
    if whole is None and cap > SIZES[-1]:
        size = min(_mult32(need), cap, 4096)
        params.update(imgsz=size, crop=TILE, shareAt=_tiny_share(short_rel, size))
        return [{"code": "tiling", "params": params, "set": {"imgsz": size, "crop": TILE}}]
    size = min(whole or cap, cap)
    params.update(imgsz=size, shareAt=_tiny_share(short_rel, size))
    return [{"code": "imgsz", "params": params, "set": {"imgsz": size}}]


def recommendations(task, images, boxes, counts, imgsz, cuda):
    """Contract recommendations (in order) and baseParams, their `set`s merged."""
    out = image_size(boxes, imgsz) if task != "classify" else []
    tiled = any(r["code"] == "tiling" for r in out)
    # single-label classification balances skewed classes by itself (README, Classification)
    if task != "classify" and counts["imbalance"] >= BALANCE_RATIO:
        out.append({"code": "balance", "params": {"ratio": round(counts["imbalance"], 1)}, "set": {"balance": True}})
    rect = _rect_aspect(task, images, counts)
    if rect and not tiled:
        out.append({"code": "rect", "params": {"aspect": rect}, "set": {"rect": True}})
    labeled = counts["labeled"]
    model = ("n" if labeled < MODEL_N_BELOW else "s") if cuda else "auto"
    out.append({"code": "model", "params": {"model": model, "device": "cuda" if cuda else "cpu", "images": labeled},
                "set": {"model": model}})
    rare = [c["name"] for c in counts["perClass"] if sum(c["instances"].values()) < RARE_INSTANCES]
    if rare:
        out.append({"code": "more_images", "params": {"classes": names_list(rare), "min": RARE_INSTANCES},
                    "set": {}})
    base = {}
    for r in out:
        base.update(r["set"])
    return out, base


def _rect_aspect(task, images, counts):
    """The shared aspect when rectangular batches pay: every image has the same aspect (within 1 %) of at least
    RECT_ASPECT (a square input then wastes ≥ 37 % on padding), only for the tasks that take `rect`, and only
    with RECT_MIN_IMAGES training images or more: rect turns mosaic off, which small datasets need most."""
    if task not in ("detect", "obb", "ocr") or counts["perSplit"]["images"]["train"] < RECT_MIN_IMAGES:
        return None
    aspects = np.array([max(im["width"], im["height"]) / max(min(im["width"], im["height"]), 1) for im in images])
    if aspects.min() < RECT_ASPECT or aspects.max() > aspects.min() * 1.01:
        return None
    return round(float(np.median(aspects)), 2)
