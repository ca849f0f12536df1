"""OCR through the CLI on drawn text: training emits epochs with text metrics and resumable checkpoints holding
both networks, test reads the lines (end to end and on the labelled boxes), the export writes the detector and
the recognizer whose ONNX output matches PyTorch's, bad input is refused clearly; the text metrics and the crop
geometry on their own. Also runnable: `python3 engine/tests/test_ocr.py DIR [--n N]` draws the dataset
(packages/runtime's parity test uses it)."""
import json
import math
import os
import random
import shutil
import sys

import cv2
import numpy as np

CHARS = "0123456789AB"


def make_text_dataset(root, n=24, size=64, seed=0, split_val=6):
    """One line of 3-4 characters (cv2 Hershey font) per image, turned by up to 8 degrees, on a noisy grey
    background; categories 'code' (digits first) and 'lot' (a letter first). Annotations carry `rbox`, `bbox`
    and `text`; image `split` and train.json / val.json / all.json."""
    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "images"), exist_ok=True)
    images, anns = [], []
    for i in range(n):
        img = np.full((size, size, 3), 170, np.uint8)
        img += np.random.RandomState(seed * 1000 + i).randint(0, 30, img.shape).astype(np.uint8)
        cls = i % 2
        text = (rng.choice("AB") if cls else rng.choice("0123456789")) + "".join(
            rng.choice(CHARS) for _ in range(rng.randint(2, 3)))
        face, scale, thick = cv2.FONT_HERSHEY_SIMPLEX, 0.42, 1
        (tw, th), base = cv2.getTextSize(text, face, scale, thick)
        cx, cy = rng.uniform(tw / 2 + 6, size - tw / 2 - 6), rng.uniform(th + 6, size - th - 6)
        layer = np.zeros_like(img)
        cv2.putText(layer, text, (int(cx - tw / 2), int(cy + th / 2)), face, scale, (255, 255, 255), thick,
                    cv2.LINE_AA)
        ang = rng.uniform(-8, 8)
        M = cv2.getRotationMatrix2D((cx, cy), -ang, 1.0)  # positive angle turns clockwise on screen
        layer = cv2.warpAffine(layer, M, (size, size))
        ink = layer[..., :1].astype(np.float32) / 255
        img = (img * (1 - ink) + np.array([20, 30, 40]) * ink).astype(np.uint8)
        w, h = tw + 2, th + base / 2 + 2
        pts = cv2.boxPoints(((cx, cy), (w, h), ang))
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        anns.append({"id": i + 1, "image_id": i + 1, "category_id": cls + 1, "iscrowd": 0, "text": text,
                     "rbox": [round(cx, 2), round(cy, 2), round(w, 2), round(h, 2), round(ang, 2)],
                     "bbox": [float(x0), float(y0), float(x1 - x0), float(y1 - y0)], "area": float(w * h)})
        name = f"t{i:03d}.png"
        cv2.imwrite(os.path.join(root, "images", name), img)
        images.append({"id": i + 1, "file_name": name, "width": size, "height": size,
                       "split": "val" if i >= n - split_val else "train"})
    cats = [{"id": 1, "name": "code"}, {"id": 2, "name": "lot"}]
    for name, keep in (("all.json", lambda im: True), ("train.json", lambda im: im["split"] == "train"),
                       ("val.json", lambda im: im["split"] == "val")):
        ims = [im for im in images if keep(im)]
        ids = {im["id"] for im in ims}
        with open(os.path.join(root, name), "w") as f:
            json.dump({"images": ims, "annotations": [a for a in anns if a["image_id"] in ids], "categories": cats}, f)
    return root


if __name__ == "__main__":
    a = sys.argv[1:]
    make_text_dataset(a[0], n=int(a[a.index("--n") + 1]) if "--n" in a else 24)
    sys.exit(0)
