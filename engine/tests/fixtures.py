"""Draw tiny COCO datasets for tests: rectangles (class 'square') and discs (class 'disc'), optionally rotated.
Also runnable: `python3 engine/tests/fixtures.py DIR [--obb] [--n N] [--size S]` (used by packages/runtime)."""
import json
import os
import random
import sys

import cv2
import numpy as np


def make_dataset(root, n=24, size=64, obb=False, seed=0, split_val=6, height=None):
    rng = random.Random(seed)
    h_img = height or size
    os.makedirs(os.path.join(root, "images"), exist_ok=True)
    images, anns = [], []
    for i in range(n):
        img = np.full((h_img, size, 3), 90, np.uint8)
        img += np.random.RandomState(seed * 1000 + i).randint(0, 20, img.shape).astype(np.uint8)
        placed = []
        for _ in range(rng.randint(1, 3)):
            cls = rng.randint(0, 1)
            w, h = rng.randint(size // 6, size // 3), rng.randint(size // 6, size // 3)
            for _try in range(20):
                cx, cy = rng.uniform(w, size - w), rng.uniform(h, h_img - h)
                if all(abs(cx - px) > (w + pw) / 2 + 2 or abs(cy - py) > (h + ph) / 2 + 2
                       for px, py, pw, ph in placed):
                    break
            else:
                continue
            placed.append((cx, cy, max(w, h) * 1.5 if obb else w, max(w, h) * 1.5 if obb else h))
            ann = {"id": len(anns) + 1, "image_id": i + 1, "category_id": cls + 1, "iscrowd": 0}
            if obb:
                ang = rng.uniform(0, 80)
                pts = cv2.boxPoints(((cx, cy), (w, h), ang))
                color = (240, 240, 240) if cls == 0 else (20, 20, 200)
                cv2.fillPoly(img, [np.round(pts).astype(np.int32)], color)
                x0, y0 = pts.min(0)
                x1, y1 = pts.max(0)
                ann["rbox"] = [cx, cy, w, h, ang]
                ann["bbox"] = [float(x0), float(y0), float(x1 - x0), float(y1 - y0)]
                ann["segmentation"] = [pts.reshape(-1).round(2).tolist()]
            else:
                x0, y0 = int(cx - w / 2), int(cy - h / 2)
                if cls == 0:
                    cv2.rectangle(img, (x0, y0), (x0 + w - 1, y0 + h - 1), (240, 240, 240), -1)
                else:
                    cv2.ellipse(img, (int(cx), int(cy)), (w // 2, h // 2), 0, 0, 360, (20, 20, 200), -1)
                ann["bbox"] = [x0, y0, w, h]
            ann["area"] = float(w * h)
            anns.append(ann)
        name = f"img{i:03d}.png"
        cv2.imwrite(os.path.join(root, "images", name), img)
        images.append({"id": i + 1, "file_name": name, "width": size, "height": h_img,
                       "split": "val" if i >= n - split_val else "train"})
    cats = [{"id": 1, "name": "square"}, {"id": 2, "name": "disc"}]
    full = {"images": images, "annotations": anns, "categories": cats}
    val_ids = {im["id"] for im in images if im["split"] == "val"}
    for name, keep in (("all.json", lambda im: True), ("train.json", lambda im: im["id"] not in val_ids),
                       ("val.json", lambda im: im["id"] in val_ids)):
        ims = [im for im in images if keep(im)]
        ids = {im["id"] for im in ims}
        with open(os.path.join(root, name), "w") as f:
            json.dump({"images": ims, "annotations": [a for a in anns if a["image_id"] in ids],
                       "categories": cats}, f)
    return root


if __name__ == "__main__":
    args = sys.argv[1:]
    make_dataset(args[0], obb="--obb" in args,
                 n=int(args[args.index("--n") + 1]) if "--n" in args else 24,
                 size=int(args[args.index("--size") + 1]) if "--size" in args else 64)
