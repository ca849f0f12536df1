"""Generated segmentation set for the benchmark (no public masks ship with the shared data): machined parts on a
textured, unevenly lit conveyor -- plates (rotated rectangles), washers (discs) and pins (thin rotated
rectangles), sometimes overlapping (a pin lying on a plate: the smaller instance is on top), with blur and sensor
noise. COCO polygons with split train/val, and each part's exact rotated box (`rbox`, for the rotated-box
benchmark; a washer's is its bounding square). Usage: segment-data.py DIR [--n N] [--size S] [--seed K]"""
import json
import math
import os
import random
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "engine"))
from loupe_engine.data.raster import fill_polygon  # noqa: E402

CLASSES = ["plate", "washer", "pin"]


def part(rng, cls, size):
    """A part's polygon and its rotated box [cx, cy, w, h, angle in degrees, clockwise on screen]."""
    cx, cy = rng.uniform(0.15, 0.85) * size, rng.uniform(0.15, 0.85) * size
    a = rng.uniform(0, 180)
    if cls == 0:
        w, h = rng.uniform(0.18, 0.35) * size, rng.uniform(0.10, 0.2) * size
    elif cls == 2:
        w, h = rng.uniform(0.15, 0.3) * size, rng.uniform(0.025, 0.045) * size
    else:
        r = rng.uniform(0.05, 0.1) * size
        t = np.arange(48) * 2 * math.pi / 48
        return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1).astype(np.float32), [cx, cy, 2 * r, 2 * r, 0.0]
    return cv2.boxPoints(((cx, cy), (w, h), a)).astype(np.float32), [cx, cy, w, h, a]


def make(root, n=400, size=256, seed=0, val_every=4):
    rng, nrs = random.Random(seed), np.random.RandomState(seed)
    os.makedirs(os.path.join(root, "images"), exist_ok=True)
    images, anns = [], []
    yy, xx = np.mgrid[0:size, 0:size] / size
    for i in range(n):
        base = 70 + 40 * (rng.random() * xx + rng.random() * yy)  # uneven light
        img = np.clip(base[..., None] + nrs.normal(0, 12, (size, size, 3)), 0, 255).astype(np.uint8)
        img = cv2.GaussianBlur(img, (0, 0), 1.2)
        polys = []
        for _ in range(rng.randint(1, 5)):
            cls = rng.choice([0, 0, 1, 1, 2])
            poly, rbox = part(rng, cls, size)
            if poly.min() < 1 or poly.max() > size - 1:
                continue
            polys.append((cls, poly, rbox))
        for cls, poly, _ in sorted(polys, key=lambda p: -cv2.contourArea(p[1])):  # smaller parts lie on top
            m = fill_polygon(np.zeros((size, size), np.uint8), [poly])
            tone = {0: (150, 160, 170), 1: (60, 120, 190), 2: (200, 200, 120)}[cls]
            shade = rng.uniform(0.8, 1.15)
            img[m > 0] = np.clip(np.array(tone) * shade + nrs.normal(0, 8, (int(m.sum()), 3)), 0, 255)
        img = cv2.GaussianBlur(img, (0, 0), 0.7)
        name = f"p{i:04d}.png"
        cv2.imwrite(os.path.join(root, "images", name), img)
        images.append({"id": i + 1, "file_name": name, "width": size, "height": size,
                       "split": "val" if i % val_every == val_every - 1 else "train"})
        for cls, poly, rbox in polys:
            lo, hi = poly.min(0), poly.max(0)
            anns.append({"id": len(anns) + 1, "image_id": i + 1, "category_id": cls + 1, "iscrowd": 0,
                         "segmentation": [poly.reshape(-1).round(2).tolist()], "rbox": [round(v, 3) for v in rbox],
                         "bbox": [float(lo[0]), float(lo[1]), float(hi[0] - lo[0]), float(hi[1] - lo[1])]})
    cats = [{"id": k + 1, "name": c} for k, c in enumerate(CLASSES)]
    json.dump({"images": images, "annotations": anns, "categories": cats}, open(os.path.join(root, "all.json"), "w"))
    val = [im for im in images if im["split"] == "val"]
    ids = {im["id"] for im in val}
    json.dump({"images": val, "annotations": [a for a in anns if a["image_id"] in ids], "categories": cats},
              open(os.path.join(root, "val.json"), "w"))
    return len(images) - len(val), len(val), len(anns)


if __name__ == "__main__":
    a = sys.argv[1:]
    kw = {k: int(a[a.index(f"--{k}") + 1]) for k in ("n", "size", "seed") if f"--{k}" in a}
    print(json.dumps(dict(zip(("train", "val", "polygons"), make(a[0], **kw)))))
