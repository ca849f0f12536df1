"""The analysed dataset: every image of a model (split or not, labelled or not) and its labels, as plain records.

Boxes are axis-aligned bounds in image pixels: `bbox` for detect and OCR (what they train on), the bounds of
`rbox` or of the polygons for obb and segment (their own geometry), `bbox` where those are missing."""
import math

import cv2
import numpy as np

from loupe_engine.data.coco import _read_json, rbox_corners
from loupe_engine.events import EngineError, log

SPLITS = ("train", "val", "test", "none")


def load(path, task):
    """(images, boxes, categories): images as dicts (id, file, width and height 0 until read, split, labeled,
    classes: category ids of a classification image), boxes as dicts (id, image_id, cat, x0, y0, x1, y1, rbox:
    [cx, cy, w, h, angle_deg] or None), categories as [(id, name)] in file order."""
    d = _read_json(path)
    if not d["images"]:
        raise EngineError("empty_dataset", f"{path}: no images")
    cats = [(c["id"], str(c.get("name", c["id"]))) for c in d.get("categories") or []]
    known = {cid for cid, _ in cats}
    bad = [i for i, im in enumerate(d["images"]) if not isinstance(im, dict) or "id" not in im
           or not isinstance(im.get("file_name"), str)]
    if bad:
        raise EngineError("dataset_invalid", f"{path}: images {bad[:8]} need an id and a file_name")
    images = [_image(im, task) for im in d["images"]]
    boxes, skipped = [], 0
    if task != "classify":
        for a in d.get("annotations") or []:
            if not isinstance(a, dict) or not isinstance(a.get("category_id"), (int, str)) \
                    or a["category_id"] not in known:
                skipped += 1
                continue
            boxes.append(_box(a, task))
    if skipped:
        log(f"note: {skipped} annotations name an unknown category and are left out")
    return images, boxes, cats


def _image(im, task):
    split = im.get("split")
    classes = []
    if task == "classify":
        classes = im["category_ids"] if isinstance(im.get("category_ids"), list) else [im.get("category_id")]
        classes = [c for c in classes if isinstance(c, (int, str))]
    # a classification image needs its class to count as labelled; a detection image labelled with no boxes is a
    # background (OK) image, which is labelled
    labeled = im.get("labeled", True) is not False
    if task == "classify" and "category_id" not in im and "category_ids" not in im:
        labeled = False
    # width and height come from the decoded file (images.measure_all), what training sees
    return {"id": im["id"], "file": im["file_name"], "width": 0, "height": 0,
            "split": split if split in SPLITS[:3] else "none", "labeled": labeled, "classes": classes}


def _box(a, task):
    """One annotation's bounds; non-numeric or missing geometry gives a zero-size box (degenerate)."""
    out = {"id": a.get("id"), "image_id": a.get("image_id"), "cat": a["category_id"], "rbox": None}
    try:
        if task in ("obb", "segment") and a.get("rbox") is not None:
            cx, cy, w, h, ang = (float(v) for v in a["rbox"])
            out["rbox"] = [cx, cy, w, h, ang]
            pts = rbox_corners(cx, cy, max(w, 0), max(h, 0), math.radians(ang))
        elif task in ("obb", "segment") and _polygons(a.get("segmentation")):
            pts = np.concatenate(_polygons(a["segmentation"]))
        else:
            x, y, w, h = (float(v) for v in a["bbox"])
            pts = np.array([[x, y], [x + max(w, 0), y + max(h, 0)]], np.float64)
    except (TypeError, ValueError, KeyError):
        pts = np.zeros((1, 2))
    if not np.isfinite(pts).all():
        pts = np.zeros((1, 2))
    (out["x0"], out["y0"]), (out["x1"], out["y1"]) = pts.min(0).tolist(), pts.max(0).tolist()
    return out


def _polygons(seg):
    if not isinstance(seg, list):
        return []
    return [np.asarray(p, np.float64).reshape(-1, 2) for p in seg
            if isinstance(p, list) and len(p) >= 6 and len(p) % 2 == 0]


def iou_same(a, b):
    """IoU of two boxes: of their rotated rectangles when both are rotated boxes, else of their bounds."""
    if a["rbox"] is not None and b["rbox"] is not None:
        ra, rb = [((r[0], r[1]), (r[2], r[3]), r[4]) for r in (a["rbox"], b["rbox"])]
        kind, pts = cv2.rotatedRectangleIntersection(ra, rb)
        if kind == cv2.INTERSECT_NONE or pts is None:
            return 0.0
        inter = cv2.contourArea(cv2.convexHull(pts))
        union = a["rbox"][2] * a["rbox"][3] + b["rbox"][2] * b["rbox"][3] - inter
        return inter / union if union > 0 else 0.0
    iw = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
    ih = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    union = (a["x1"] - a["x0"]) * (a["y1"] - a["y0"]) + (b["x1"] - b["x0"]) * (b["y1"] - b["y0"]) - inter
    return inter / union if union > 0 else 0.0


def place(boxes, images):
    """Attach each box to its image (dropping boxes of unknown images) and classify it: `degenerate` (a side
    under 1 px, or wholly outside the image), `outside` (past an edge by more than 1 % of that side), and its
    bounds clipped to the image (cx0..cy1), which is what training keeps of it."""
    by_id = {im["id"]: im for im in images}
    kept = []
    for b in boxes:
        im = by_id.get(b["image_id"])
        if im is None:
            continue
        W, H = im["width"], im["height"]
        w, h = (b["rbox"][2], b["rbox"][3]) if b["rbox"] is not None else (b["x1"] - b["x0"], b["y1"] - b["y0"])
        b["W"], b["H"] = W, H
        b["cx0"], b["cy0"] = max(b["x0"], 0.0), max(b["y0"], 0.0)
        b["cx1"], b["cy1"] = min(b["x1"], float(W)), min(b["y1"], float(H))
        b["degenerate"] = bool(w < 1 or h < 1 or b["x1"] <= 0 or b["y1"] <= 0 or b["x0"] >= W or b["y0"] >= H)
        b["outside"] = not b["degenerate"] and bool(b["x0"] < -0.01 * W or b["y0"] < -0.01 * H
                                                    or b["x1"] > 1.01 * W or b["y1"] > 1.01 * H)
        kept.append(b)
    return kept
