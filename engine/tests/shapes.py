"""Draw tiny datasets for the classify, segment and measure tests: discs and squares on a noisy grey background.
Runnable too: `python3 engine/tests/shapes.py DIR classify|classify-folder|multi|segment [--n N] [--size S]`."""
import json
import math
import os
import random
import sys

import cv2
import numpy as np

from loupe_engine.data.raster import fill_polygon

NAMES = ["disc", "square"]
COLOURS = [(30, 30, 210), (235, 235, 235)]


def _canvas(size, seed):
    img = np.full((size, size, 3), 90, np.uint8)
    return img + np.random.RandomState(seed).randint(0, 25, img.shape).astype(np.uint8)


def square_poly(cx, cy, side, angle_deg):
    return cv2.boxPoints(((cx, cy), (side, side), angle_deg)).astype(np.float32)


def disc_poly(cx, cy, r, n=32):
    t = np.arange(n) * 2 * math.pi / n
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1).astype(np.float32)


def fill(img, poly, colour):
    """Fill a polygon in continuous pixel coordinates exactly as the engine rasterizes labels."""
    m = fill_polygon(np.zeros(img.shape[:2], np.uint8), [poly])
    img[m > 0] = colour


def _shape(rng, cls, size):
    s = rng.uniform(size * 0.22, size * 0.4)
    cx, cy = rng.uniform(s * 0.75, size - s * 0.75), rng.uniform(s * 0.75, size - s * 0.75)
    return disc_poly(cx, cy, s / 2) if cls == 0 else square_poly(cx, cy, s, rng.uniform(0, 90))


def _write(root, name, images, cats, anns=None):
    with open(os.path.join(root, name), "w") as f:
        json.dump({"images": images, "annotations": anns or [], "categories": cats}, f)


def make_classify(root, n=40, size=64, seed=0, multi=False, val_every=4):
    """One shape per image (single-label, `category_id`), or any subset of the two (multi-label,
    `category_ids`). Every `val_every`-th pair of images has split val."""
    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "images"), exist_ok=True)
    images = []
    for i in range(n):
        img = _canvas(size, seed * 1000 + i)
        classes = [c for c in (0, 1) if rng.random() < 0.5] if multi else [i % 2]
        for c in classes:
            fill(img, _shape(rng, c, size), COLOURS[c])
        name = f"c{i:03d}.png"
        cv2.imwrite(os.path.join(root, "images", name), img)
        im = {"id": i + 1, "file_name": name, "width": size, "height": size,
              "split": "val" if (i // 2) % val_every == val_every - 1 else "train"}  # both classes validate
        if multi:
            im["category_ids"] = [c + 1 for c in classes]
        else:
            im["category_id"] = classes[0] + 1
        images.append(im)
    _write(root, "all.json", images, [{"id": i + 1, "name": n} for i, n in enumerate(NAMES)])
    return root


def make_classify_folder(root, n=20, size=64, seed=0):
    """root/disc/*.png and root/square/*.png (a folder upload)."""
    rng = random.Random(seed)
    for i in range(n):
        c = i % 2
        os.makedirs(os.path.join(root, NAMES[c]), exist_ok=True)
        img = _canvas(size, seed * 1000 + i)
        fill(img, _shape(rng, c, size), COLOURS[c])
        cv2.imwrite(os.path.join(root, NAMES[c], f"{i:03d}.png"), img)
    return root


def make_segment(root, n=24, size=64, seed=0, val_every=4):
    """1-3 non-overlapping discs and rotated squares per image, labelled with COCO polygons."""
    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "images"), exist_ok=True)
    images, anns = [], []
    for i in range(n):
        img = _canvas(size, seed * 1000 + i)
        placed = []
        for _ in range(rng.randint(1, 3)):
            c = rng.randint(0, 1)
            for _try in range(30):
                poly = _shape(rng, c, size)
                lo, hi = poly.min(0), poly.max(0)
                if all(lo[0] > b[2] + 2 or hi[0] < b[0] - 2 or lo[1] > b[3] + 2 or hi[1] < b[1] - 2 for b in placed):
                    break
            else:
                continue
            placed.append((*lo, *hi))
            fill(img, poly, COLOURS[c])
            anns.append({"id": len(anns) + 1, "image_id": i + 1, "category_id": c + 1, "iscrowd": 0,
                         "segmentation": [poly.reshape(-1).round(3).tolist()],
                         "bbox": [float(lo[0]), float(lo[1]), float(hi[0] - lo[0]), float(hi[1] - lo[1])],
                         "area": float(cv2.contourArea(poly))})
        name = f"s{i:03d}.png"
        cv2.imwrite(os.path.join(root, "images", name), img)
        images.append({"id": i + 1, "file_name": name, "width": size, "height": size,
                       "split": "val" if i % val_every == val_every - 1 else "train"})
    cats = [{"id": i + 1, "name": n} for i, n in enumerate(NAMES)]
    _write(root, "all.json", images, cats, anns)
    val = [im for im in images if im["split"] == "val"]
    _write(root, "val.json", val, cats, [a for a in anns if a["image_id"] in {im["id"] for im in val}])
    return root


if __name__ == "__main__":
    a = sys.argv[1:]
    kw = {k: int(a[a.index(f"--{k}") + 1]) for k in ("n", "size") if f"--{k}" in a}
    {"classify": make_classify, "multi": lambda r, **k: make_classify(r, multi=True, **k),
     "classify-folder": make_classify_folder, "segment": make_segment}[a[1]](a[0], **kw)
