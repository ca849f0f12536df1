"""SD-saliency-900 (or a folder laid out like it: images/<Class>_<n>.<ext>, masks/<Class>_<n>.png, 0 background,
255 defect; the class is the file-name prefix before the first '_') for bench/segment-real.mjs.

  segment-real-data.py prepare SRC OUT   COCO train.json / val.json (validation: names sorted as plain strings,
                                         index % 5 == 4) of the masks as polygons of their image's class; prints
                                         counts and how exactly the polygons redraw the masks (IoU)
  segment-real-data.py score SRC VAL.json PRED.json
                                         per-class IoU of the engine's predictions (--masks rle) against the
                                         original masks at full resolution, and defect recall (share of
                                         validation images where a predicted defect pixel overlaps the true mask)

Polygons: each 8-connected mask part's outer contour traced on the mask doubled in size, so a vertex lies a
quarter pixel inside the boundary pixel's edge and a 1-pixel-wide scratch keeps an area (a contour through the
pixel centres would have none). Holes inside a part are filled (COCO polygons have none); the printed IoU says
how much that costs."""
import json
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "engine"))
from loupe_engine.data.raster import fill_polygon  # noqa: E402
from loupe_engine.segment.instances import rle_decode  # noqa: E402


def listing(src):
    names = sorted(f for f in os.listdir(os.path.join(src, "images")) if not f.startswith("."))
    classes = sorted({n.split("_")[0] for n in names})
    return names, classes


def mask_of(src, name):
    m = cv2.imread(os.path.join(src, "masks", os.path.splitext(name)[0] + ".png"), cv2.IMREAD_GRAYSCALE)
    if m is None:
        raise SystemExit(f"no mask for {name} in {src}/masks")
    return m > 127


def mask_polygons(mask):
    big = cv2.resize(mask.astype(np.uint8), None, fx=2, fy=2, interpolation=cv2.INTER_NEAREST)
    cs, _ = cv2.findContours(big, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in cs:
        c = (c.reshape(-1, 2).astype(np.float64) + 0.5) / 2
        if len(c) >= 3:
            out.append(c)
    return out


def prepare(src, out):
    names, classes = listing(src)
    os.makedirs(out, exist_ok=True)
    cats = [{"id": k + 1, "name": c} for k, c in enumerate(classes)]
    sets = {"train": {"images": [], "annotations": [], "categories": cats},
            "val": {"images": [], "annotations": [], "categories": cats}}
    inter = union = 0
    for i, name in enumerate(names):
        img = cv2.imread(os.path.join(src, "images", name), cv2.IMREAD_GRAYSCALE)
        h, w = img.shape
        mask = mask_of(src, name)
        d = sets["val" if i % 5 == 4 else "train"]
        d["images"].append({"id": i + 1, "file_name": name, "width": w, "height": h})
        redrawn = np.zeros((h, w), np.uint8)
        for p in mask_polygons(mask):
            fill_polygon(redrawn, [p.astype(np.float32)], 1)
            d["annotations"].append({"id": len(d["annotations"]) + 1, "image_id": i + 1,
                                     "category_id": classes.index(name.split("_")[0]) + 1,
                                     "segmentation": [[round(float(v), 2) for v in p.reshape(-1)]]})
        inter += int((mask & (redrawn > 0)).sum())
        union += int((mask | (redrawn > 0)).sum())
    for k, d in sets.items():
        with open(os.path.join(out, f"{k}.json"), "w") as f:
            json.dump(d, f)
    print(json.dumps({"train": len(sets["train"]["images"]), "val": len(sets["val"]["images"]), "classes": classes,
                      "polygons": sum(len(d["annotations"]) for d in sets.values()),
                      "redraw_iou": round(inter / max(union, 1), 4)}))


def score(src, val_path, pred_path):
    val = json.load(open(val_path))
    classes = [c["name"] for c in sorted(val["categories"], key=lambda c: c["id"])]
    preds = {}
    for p in json.load(open(pred_path)):
        preds.setdefault(p["image_id"], []).append(p)
    nc = len(classes)
    inter, pred_px, gt_px = np.zeros(nc), np.zeros(nc), np.zeros(nc)
    found = {c: 0 for c in classes}
    total = {c: 0 for c in classes}
    for im in val["images"]:
        truth = mask_of(src, im["file_name"])
        c = classes.index(im["file_name"].split("_")[0])
        planes = np.zeros((nc, im["height"], im["width"]), bool)
        for p in preds.get(im["id"], []):
            planes[p["category_id"] - 1] |= rle_decode(p["segmentation"]).astype(bool)
        for k in range(nc):
            pred_px[k] += planes[k].sum()
        inter[c] += (planes[c] & truth).sum()
        gt_px[c] += truth.sum()
        if truth.any():
            total[classes[c]] += 1
            found[classes[c]] += bool((planes.any(0) & truth).any())
    iou = inter / np.maximum(pred_px + gt_px - inter, 1)
    print(json.dumps({"per_class": {c: round(float(iou[k]), 4) for k, c in enumerate(classes)},
                      "mIoU": round(float(iou.mean()), 4),
                      "found": found, "defective": total,
                      "defect_recall": round(sum(found.values()) / max(sum(total.values()), 1), 4)}))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "score":
        score(*sys.argv[2:])
    else:
        raise SystemExit(__doc__)
