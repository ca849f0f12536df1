"""DeepPCB defect crops as a classification set: every labelled defect becomes one image (a square of 1.5x its box's
long side, at least 32 px, centred on the box) in DIR/train/<class>/ (trainval split) or DIR/val/<class>/ (test
split) -- the folder-of-class-folders layout the engine trains on directly. Usage: classify-data.py DEEPPCB DIR"""
import json
import os
import sys

import cv2

src, dst = sys.argv[1], sys.argv[2]
counts = {}
for split, name in (("train", "coco_trainval.json"), ("val", "coco_test.json")):
    d = json.load(open(os.path.join(src, name)))
    cats = {c["id"]: c["name"] for c in d["categories"]}
    files = {im["id"]: im["file_name"] for im in d["images"]}
    by_img = {}
    for a in d["annotations"]:
        by_img.setdefault(a["image_id"], []).append(a)
    for iid, anns in by_img.items():
        img = cv2.imread(os.path.join(src, "images", files[iid]))
        h, w = img.shape[:2]
        pad = cv2.copyMakeBorder(img, 128, 128, 128, 128, cv2.BORDER_CONSTANT, value=(0, 0, 0))
        for a in anns:
            x, y, bw, bh = a["bbox"]
            side = int(max(32, 1.5 * max(bw, bh)))
            cx, cy = x + bw / 2 + 128, y + bh / 2 + 128
            x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
            crop = pad[max(0, y0):y0 + side, max(0, x0):x0 + side]
            folder = os.path.join(dst, split, cats[a["category_id"]])
            os.makedirs(folder, exist_ok=True)
            cv2.imwrite(os.path.join(folder, f"{a['id']}.png"), crop)
            counts[split] = counts.get(split, 0) + 1
print(json.dumps(counts))
