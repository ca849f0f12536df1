"""A realistic OCR set made here (the shared data has no text images): serial numbers, lot codes and dates marked
on part-like backgrounds (brushed or cast metal, plastic; holes, edges, scratches, uneven light, noise, blur),
each line turned a little, in several marking styles: Debian's TrueType fonts (sans, mono, bold), OpenCV's
Hershey strokes and a dot-matrix print. Usage: ocr-data.py DIR [--train N] [--val N] [--test N] [--seed S].
Writes DIR/images, DIR/train.json, DIR/val.json, DIR/test.json (COCO with `rbox` and `text`) and prints counts."""
import json
import math
import os
import random
import sys

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

W, H = 320, 240
FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
         "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
         "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
         "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf"]
STYLES = ["font"] * 5 + ["hershey", "hershey", "dots"]
ALNUM = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"


def serial(rng):
    body = "".join(rng.choice(ALNUM) for _ in range(4)) + "-" + "".join(rng.choice("0123456789") for _ in range(rng.randint(4, 6)))
    return rng.choice(["SN ", "S/N ", "SN:", ""]) + body


def lot(rng):
    return rng.choice(["LOT ", "L:", "LOT:"]) + f"{rng.randint(18, 29)}-{rng.randint(1, 9999):04d}" + rng.choice(ALNUM[:20])


def date(rng):
    y, m, d = rng.randint(2019, 2031), rng.randint(1, 12), rng.randint(1, 28)
    return rng.choice([f"{y}-{m:02d}-{d:02d}", f"{d:02d}.{m:02d}.{y}", f"{d:02d}/{m:02d}/{y % 100:02d}", f"EXP {m:02d}/{y}"])


KINDS = [("serial", serial), ("lot", lot), ("date", date)]


def background(rng, nrng):
    kind = rng.choice(["brushed", "cast", "plastic"])
    base = rng.uniform(60, 210)
    img = np.full((H, W), base, np.float32)
    if kind == "brushed":
        streak = nrng.normal(0, 1, (H, W)).astype(np.float32)
        img += cv2.GaussianBlur(streak, (0, 0), sigmaX=25, sigmaY=0.6) * rng.uniform(20, 60)
    elif kind == "cast":
        img += cv2.GaussianBlur(nrng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 2.5) * rng.uniform(15, 35)
    gy, gx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    img += ((gx - W / 2) * math.cos(ang) + (gy - H / 2) * math.sin(ang)) / W * rng.uniform(-60, 60)
    img = np.repeat(img[..., None], 3, 2) * np.array([rng.uniform(0.9, 1.1) for _ in range(3)], np.float32)
    for _ in range(rng.randint(0, 3)):  # holes and bosses
        c = (rng.randint(0, W), rng.randint(0, H))
        cv2.circle(img, c, rng.randint(8, 30), [float(v) for v in np.full(3, rng.uniform(0, 255))], -1, cv2.LINE_AA)
    for _ in range(rng.randint(0, 2)):  # machined edges
        y = rng.randint(0, H)
        cv2.line(img, (0, y), (W, y + rng.randint(-40, 40)), [rng.uniform(0, 255)] * 3, rng.randint(2, 8), cv2.LINE_AA)
    for _ in range(rng.randint(0, 6)):  # scratches
        p = (rng.randint(0, W), rng.randint(0, H))
        q = (p[0] + rng.randint(-80, 80), p[1] + rng.randint(-20, 20))
        cv2.line(img, p, q, [base + rng.uniform(-50, 50)] * 3, 1, cv2.LINE_AA)
    return img


def ink_layer(rng, text, style, size):
    """A float mask (h, w) of the marked text, tight around its ink."""
    if style == "font":
        font = ImageFont.truetype(rng.choice(FONTS), size)
        l, t, r, b = font.getbbox(text)
        im = Image.new("L", (r - l + 4, b - t + 4), 0)
        ImageDraw.Draw(im).text((2 - l, 2 - t), text, font=font, fill=255)
        m = np.asarray(im, np.float32) / 255
    elif style == "hershey":
        face = rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_PLAIN])
        scale = cv2.getFontScaleFromHeight(face, size, 1) * 0.75
        thick = max(1, round(size / 12))
        (tw, th), base = cv2.getTextSize(text, face, scale, thick)
        m = np.zeros((th + base + 6, tw + 6), np.uint8)
        cv2.putText(m, text, (3, th + 3), face, scale, 255, thick, cv2.LINE_AA)
        m = m.astype(np.float32) / 255
    else:  # dot matrix: a bold font sampled on a grid of round dots
        font = ImageFont.truetype(FONTS[1], size)
        l, t, r, b = font.getbbox(text)
        im = Image.new("L", (r - l + 4, b - t + 4), 0)
        ImageDraw.Draw(im).text((2 - l, 2 - t), text, font=font, fill=255)
        src = np.asarray(im)
        step = max(2, size // 7)
        m = np.zeros(src.shape, np.float32)
        for y in range(step // 2, src.shape[0], step):
            for x in range(step // 2, src.shape[1], step):
                if src[y, x] > 100:
                    cv2.circle(m, (x, y), max(1, step // 2), 1.0, -1, cv2.LINE_AA)
    ys, xs = np.nonzero(m > 0.2)
    return m[max(0, ys.min() - 1):ys.max() + 2, max(0, xs.min() - 1):xs.max() + 2]


def draw(i, rng, nrng):
    img = background(rng, nrng)
    lines, placed = [], []
    for _ in range(rng.randint(1, 3)):
        cat, gen = rng.choice(KINDS)
        text = gen(rng)
        style = rng.choice(STYLES)
        size = rng.randint(15, 26)
        m = ink_layer(rng, text, style, size)
        h, w = m.shape
        if w > W - 20:
            continue
        ang = rng.uniform(-7, 7)
        for _try in range(30):
            cx, cy = rng.uniform(w / 2 + 8, W - w / 2 - 8), rng.uniform(h / 2 + 12, H - h / 2 - 12)
            box = (cx - w / 2 - 6, cy - h / 2 - 6, cx + w / 2 + 6, cy + h / 2 + 6 + abs(math.sin(math.radians(ang))) * w / 2)
            if all(box[2] < p[0] or box[0] > p[2] or box[3] < p[1] or box[1] > p[3] for p in placed):
                break
        else:
            continue
        placed.append(box)
        # the tight ink box, turned by ang about its centre (positive = clockwise on screen)
        M = cv2.getRotationMatrix2D((w / 2, h / 2), -ang, 1.0)
        M[:, 2] += (cx - w / 2, cy - h / 2)
        layer = cv2.warpAffine(m, M, (W, H), flags=cv2.INTER_LINEAR)[..., None]
        local = img[int(max(0, cy - h)):int(cy + h), int(max(0, cx - w / 2)):int(cx + w / 2)].mean()
        if rng.random() < 0.5:
            colour = np.full(3, local - rng.uniform(70, 130))  # printed / etched dark
        else:
            colour = np.full(3, local + rng.uniform(70, 130))  # laser-marked light
        colour = np.clip(colour + nrng.normal(0, 8, 3), 0, 255)
        img = img * (1 - layer * rng.uniform(0.8, 1.0)) + colour * layer * rng.uniform(0.8, 1.0)
        pad = 1.5
        lines.append({"category": cat, "text": text, "rbox": [round(cx, 2), round(cy, 2), round(w + 2 * pad, 2),
                                                              round(h + 2 * pad, 2), round(ang, 2)]})
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    img += nrng.normal(0, rng.uniform(2, 9), img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), lines


def main():
    a = sys.argv[1:]
    root = a[0]
    opt = lambda k, d: int(a[a.index(k) + 1]) if k in a else d  # noqa: E731
    counts = {"train": opt("--train", 200), "val": opt("--val", 30), "test": opt("--test", 50)}
    rng, nrng = random.Random(opt("--seed", 7)), np.random.default_rng(opt("--seed", 7))
    os.makedirs(os.path.join(root, "images"), exist_ok=True)
    cats = [{"id": k + 1, "name": n} for k, (n, _) in enumerate(KINDS)]
    cat_id = {c["name"]: c["id"] for c in cats}
    n_id, out = 0, {}
    for split, n in counts.items():
        images, anns = [], []
        for _ in range(n):
            n_id += 1
            img, lines = draw(n_id, rng, nrng)
            name = f"{split}_{n_id:04d}.png"
            cv2.imwrite(os.path.join(root, "images", name), img[..., ::-1])
            images.append({"id": n_id, "file_name": name, "width": W, "height": H})
            for ln in lines:
                cx, cy, w, h, ang = ln["rbox"]
                pts = cv2.boxPoints(((cx, cy), (w, h), ang))
                x0, y0 = pts.min(0)
                x1, y1 = pts.max(0)
                anns.append({"id": len(anns) + 1 + n_id * 10, "image_id": n_id, "category_id": cat_id[ln["category"]],
                             "rbox": ln["rbox"], "bbox": [float(x0), float(y0), float(x1 - x0), float(y1 - y0)],
                             "area": float(w * h), "iscrowd": 0, "text": ln["text"]})
        with open(os.path.join(root, f"{split}.json"), "w") as f:
            json.dump({"images": images, "annotations": anns, "categories": cats}, f)
        out[split] = {"images": len(images), "lines": len(anns)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
