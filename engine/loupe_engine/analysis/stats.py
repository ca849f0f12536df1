"""The figures of the statistics page: counts per class and split, resolutions, box sizes and positions.

Boxes are counted as training keeps them: degenerate ones left out, the rest clipped to their image."""
import math
from collections import Counter

import numpy as np

from loupe_engine.analysis.data import SPLITS

TINY_PX = 8  # a box whose shorter side is under this many pixels at the training size is hard to learn
REL_EDGES = [round(i * 0.05, 2) for i in range(21)]
AREA_REL_EDGES = [0, 0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1]
ASPECT_EDGES = [0, 0.2, 0.25, 1 / 3, 0.5, 2 / 3, 0.8, 1.25, 1.5, 2, 3, 4, 5]  # width / height; last bin: 5 and up
HEAT = 16


def histogram(values, edges):
    """Contract Histogram: counts[i] of values in [edges[i], edges[i+1]), the last bin closed."""
    counts, _ = np.histogram(np.asarray(values, np.float64), bins=np.asarray(edges, np.float64))
    return {"edges": [round(float(e), 6) for e in edges], "counts": counts.astype(int).tolist()}


def nice_edges(values, bins=20):
    """Edges from 0 in a round step (1, 2 or 5 × 10^k) that cover the largest value in about `bins` bins."""
    top = max(values, default=0) or 1
    raw = top / bins
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    return [round(i * step, 6) for i in range(math.ceil(top / step) + 1)]


def count_edges(values):
    """One bin per count up to 30 objects, round bins above."""
    top = max(values, default=0)
    return list(range(top + 2)) if top <= 30 else nice_edges(values)


def counts(images, boxes, cats, task):
    """Contract counts: images and instances per split and per class, objects per image, imbalance."""
    zero = {s: 0 for s in SPLITS}
    per_split = {"images": dict(zero), "instances": dict(zero)}
    per_class = {cid: {"id": cid, "name": name, "images": dict(zero), "instances": dict(zero)} for cid, name in cats}
    objects = Counter()
    for im in images:
        per_split["images"][im["split"]] += 1
    by_image = {}
    if task == "classify":
        for im in images:
            by_image[im["id"]] = [c for c in im["classes"] if c in per_class]
    else:
        for b in boxes:
            if not b["degenerate"]:
                by_image.setdefault(b["image_id"], []).append(b["cat"])
    for im in images:
        labels = by_image.get(im["id"], [])
        objects[im["id"]] = len(labels)
        per_split["instances"][im["split"]] += len(labels)
        for cid, n in Counter(labels).items():
            per_class[cid]["images"][im["split"]] += 1
            per_class[cid]["instances"][im["split"]] += n
    totals = [sum(c["instances"].values()) for c in per_class.values()]
    present = [t for t in totals if t > 0]
    labeled = [objects[im["id"]] for im in images if im["labeled"]]
    return {"images": len(images), "labeled": sum(im["labeled"] for im in images),
            "instances": sum(per_split["instances"].values()), "perSplit": per_split,
            "perClass": list(per_class.values()),
            "objectsPerImage": histogram(labeled, count_edges(labeled)),
            "imbalance": round(max(present) / min(present), 3) if present else 1.0}


def resolutions(images):
    sizes = Counter((im["width"], im["height"]) for im in images)
    return [{"width": w, "height": h, "count": n} for (w, h), n in sizes.most_common(50)]


def box_sizes(boxes, imgsz):
    """Per kept box: clipped width and height in px, relative ones, and the shorter side at `imgsz` (the image's
    long side resized to it)."""
    kept = [b for b in boxes if not b["degenerate"]]
    w = np.array([b["cx1"] - b["cx0"] for b in kept], np.float64)
    h = np.array([b["cy1"] - b["cy0"] for b in kept], np.float64)
    W = np.array([b["W"] for b in kept], np.float64)
    H = np.array([b["H"] for b in kept], np.float64)
    scale = imgsz / np.maximum(np.maximum(W, H), 1)
    return kept, w, h, W, H, np.minimum(w, h) * scale


def boxes_figures(boxes, imgsz):
    """Contract `boxes`: size histograms, the centre heatmap and the tiny share at imgsz."""
    kept, w, h, W, H, short_at = box_sizes(boxes, imgsz)
    cx = np.array([(b["cx0"] + b["cx1"]) / 2 for b in kept]) / np.maximum(W, 1)
    cy = np.array([(b["cy0"] + b["cy1"]) / 2 for b in kept]) / np.maximum(H, 1)
    cells = np.zeros((HEAT, HEAT), np.int64)
    if kept:
        rows, cols = (np.clip((v * HEAT).astype(int), 0, HEAT - 1) for v in (cy, cx))
        np.add.at(cells, (rows, cols), 1)
    aspect = w / np.maximum(h, 1e-9)
    top = max(ASPECT_EDGES[-1], float(aspect.max(initial=0)))
    return {"count": len(kept),
            "width": histogram(w, nice_edges(w.tolist())), "height": histogram(h, nice_edges(h.tolist())),
            "widthRel": histogram(np.clip(w / np.maximum(W, 1), 0, 1), REL_EDGES),
            "heightRel": histogram(np.clip(h / np.maximum(H, 1), 0, 1), REL_EDGES),
            "areaRel": histogram(np.clip(w * h / np.maximum(W * H, 1), 0, 1), AREA_REL_EDGES),
            "aspect": histogram(aspect, ASPECT_EDGES[:-1] + [top]),
            "heatmap": {"rows": HEAT, "cols": HEAT, "cells": cells.reshape(-1).tolist()},
            "tinyShare": round(float((short_at < TINY_PX).mean()) if kept else 0.0, 4), "tinyPx": TINY_PX}
