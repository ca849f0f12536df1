"""COCO JSON in, plain records out, with Loupe's documented extensions (see engine/README.md):

- annotation `rbox: [cx, cy, w, h, angle_deg]`: a rotated box (positive angle turns clockwise on screen)
- annotation `segmentation`: standard COCO polygons; for obb without `rbox` their min-area rectangle is used
- annotation `text`: OCR content (carried, unused by detection)
- image `split`: train | val | test, used when no separate --val file is given
Each record holds `cls` (n,) and `pts` (n, 4, 2): the four corners of every box in image pixels.
"""
import json
import os

import cv2
import numpy as np

from loupe_engine.events import EngineError, log


def rbox_corners(cx, cy, w, h, angle_rad):
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    dx = np.array([-w, w, w, -w]) / 2
    dy = np.array([-h, -h, h, h]) / 2
    return np.stack([cx + dx * c - dy * s, cy + dx * s + dy * c], -1).astype(np.float32)


def _read_json(path):
    if not path or not os.path.isfile(path):
        raise EngineError("dataset_missing", f"dataset file not found: {path}")
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        raise EngineError("dataset_invalid", f"{path} is not valid JSON: {e}")
    if not isinstance(d, dict) or not isinstance(d.get("images"), list):
        raise EngineError("dataset_invalid", f"{path} is not a COCO file: it needs an 'images' list")
    return d


def load_coco(path, images_dir, task="detect", names=None, split=None, need_boxes=True):
    """Read a COCO file; returns (records, names, cat_ids). `names` pins the class order of a trained model."""
    d = _read_json(path)
    cats = d.get("categories") or []
    if names is None:
        names = [c["name"] for c in cats]
    name_to_idx = {n: i for i, n in enumerate(names)}
    cat_map = {}
    for c in cats:
        if c["name"] in name_to_idx:
            cat_map[c["id"]] = name_to_idx[c["name"]]
    images = d["images"]
    if split:
        tagged = [im for im in images if "split" in im]
        if tagged:
            images = [im for im in images if im.get("split") in split]
    if not images:
        raise EngineError("empty_dataset", f"{path}: no images" + (f" in split {'/'.join(split)}" if split else ""))
    by_img = {}
    for a in d.get("annotations") or []:
        by_img.setdefault(a.get("image_id"), []).append(a)
    records, problems = [], []
    for im in images:
        fp = os.path.join(images_dir, im["file_name"])
        W, H = im.get("width"), im.get("height")
        if not W or not H:
            img = cv2.imread(fp)
            if img is None:
                problems.append(f"image {im['file_name']} does not decode")
                continue
            H, W = img.shape[:2]
        cls, pts = [], []
        for a in by_img.get(im["id"], []):
            if a.get("category_id") not in cat_map:
                if names is not None and cats and any(c["id"] == a.get("category_id") for c in cats):
                    continue  # a class this model does not know
                problems.append(f"annotation {a.get('id')} names unknown category {a.get('category_id')}")
                continue
            box = _corners(a, task)
            if box is None:
                continue
            x0, y0 = box.min(0)
            x1, y1 = box.max(0)
            if task == "detect" and (x0 < -1 or y0 < -1 or x1 > W + 1 or y1 > H + 1):
                problems.append(f"box {[round(float(v), 1) for v in (x0, y0, x1 - x0, y1 - y0)]} of annotation "
                                f"{a.get('id')} lies outside image {im['file_name']} ({W}x{H})")
                continue
            if task != "detect" and (box[:, 0].mean() < 0 or box[:, 1].mean() < 0 or box[:, 0].mean() > W
                                     or box[:, 1].mean() > H):
                problems.append(f"rotated box of annotation {a.get('id')} has its centre outside {im['file_name']}")
                continue
            if task == "detect":
                box = np.clip(box, 0, [W, H]).astype(np.float32)
            cls.append(cat_map[a["category_id"]])
            pts.append(box)
        records.append({"id": im["id"], "file": im["file_name"], "path": fp, "width": int(W), "height": int(H),
                        "cls": np.array(cls, np.int64), "pts": np.array(pts, np.float32).reshape(-1, 4, 2)})
    if problems:
        more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
        raise EngineError("dataset_invalid", f"{path}: " + "; ".join(problems[:8]) + more)
    if need_boxes:
        if not names:
            raise EngineError("empty_dataset", f"{path}: no categories")
        counts = np.bincount(np.concatenate([r["cls"] for r in records] + [np.zeros(0, np.int64)]),
                             minlength=len(names))
        if counts.sum() == 0:
            raise EngineError("empty_dataset", f"{path}: no boxes to train on")
        empty = [names[i] for i in range(len(names)) if counts[i] == 0]
        if empty:
            raise EngineError("category_without_boxes",
                              f"{path}: categories with no boxes: {', '.join(empty)}; label some or remove them")
    return records, list(names), {v: k for k, v in cat_map.items()}


def _corners(a, task):
    """Four corners of an annotation, or None (with a note) for a degenerate one."""
    if task != "detect" and a.get("rbox") is not None:
        cx, cy, w, h, ang = [float(v) for v in a["rbox"]]
        if w <= 0 or h <= 0:
            return None
        return rbox_corners(cx, cy, w, h, np.deg2rad(ang))
    seg = a.get("segmentation")
    if task != "detect" and isinstance(seg, list) and seg and len(seg[0]) >= 6:
        poly = np.array(seg[0], np.float32).reshape(-1, 2)
        (cx, cy), (w, h), ang = cv2.minAreaRect(poly)
        if w <= 0 or h <= 0:
            return None
        return rbox_corners(cx, cy, w, h, np.deg2rad(ang))
    b = a.get("bbox")
    if not b or len(b) != 4:
        return None
    x, y, w, h = [float(v) for v in b]
    if w <= 0 or h <= 0:
        log(f"note: skipping empty box of annotation {a.get('id')}")
        return None
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)


def check_images(records, keep=False):
    """Decode every image once so a broken file fails before training, not in epoch 7."""
    bad = []
    for r in records:
        img = cv2.imread(r["path"], cv2.IMREAD_COLOR)
        if img is None:
            bad.append(r["file"])
            continue
        if keep:
            r["img"] = img
        r["height"], r["width"] = img.shape[:2]
    if bad:
        more = f" (and {len(bad) - 8} more)" if len(bad) > 8 else ""
        raise EngineError("bad_image", f"images that do not decode or are missing: {', '.join(bad[:8])}{more}")
