"""OCR data: the text of each labelled box (COCO annotation `text`), the rectified crops the recognizer learns
from (augmented real crops and synthetic lines, half each), and crops for evaluation.

A box's orientation comes from its `rbox`, else its polygon's minimum-area rectangle, else its `bbox` (angle 0),
as for the detector (data/coco.py); it is then put in reading direction (crop.canonical)."""
import math
import random

import cv2
import numpy as np
import torch

from loupe_engine.data.coco import _corners, _read_json
from loupe_engine.events import EngineError
from loupe_engine.ocr.crop import REC_HEIGHT, canonical, content_width, corners_to_rbox, rectify
from loupe_engine.ocr.synth import Renderer, text_colours
from loupe_engine.ocr.text import encode, normalise

SYNTHETIC_SHARE = 0.5  # of the recognizer's samples per epoch
MIN_SAMPLES = 128  # recognizer samples per epoch at least (real crops repeat on small datasets)
RENDER_EVERY = 3  # epochs a synthetic line is reused (with new augmentation) before it is drawn anew
CONTEXT = 0.6  # share of the box height kept around each stored training crop (for jitter and rotation)


def load_texts(path, names):
    """{image id: [(class index, (cx, cy, w, h, angle_deg) canonical, text or None)]} of a COCO file. Raises on
    a `text` that is empty or not a string."""
    d = _read_json(path)
    cats = {c["id"]: c["name"] for c in d.get("categories") or []}
    idx = {n: i for i, n in enumerate(names)}
    out, empty = {}, []
    for a in d.get("annotations") or []:
        name = cats.get(a.get("category_id"))
        if name not in idx:
            continue
        pts = _corners(a, "obb")
        if pts is None:
            continue
        text = a.get("text")
        if text is not None:
            text = normalise(text) if isinstance(text, (str, int, float)) and not isinstance(text, bool) else ""
            if not text:
                empty.append(str(a.get("id")))
        out.setdefault(a.get("image_id"), []).append((idx[name], canonical(*corners_to_rbox(pts)), text))
    if empty:
        more = f" (and {len(empty) - 8} more)" if len(empty) > 8 else ""
        raise EngineError("empty_text", f"{path}: annotations {', '.join(empty[:8])}{more} have an empty `text`; "
                                        "type the text they show, or remove the key to use the box for detection only")
    return out


def read_rgb(record):
    img = record.get("img")
    if img is None:
        img = cv2.imread(record["path"], cv2.IMREAD_COLOR)
    if img is None:
        raise EngineError("bad_image", f"image {record['file']} does not decode or is missing")
    return np.ascontiguousarray(img[..., ::-1])


def cut_context(img, box):
    """A small image around a box (the box plus CONTEXT of its height on every side) and the box in it."""
    cx, cy, w, h, ang = box
    t = math.radians(ang)
    ext = (abs(w * math.cos(t)) + abs(h * math.sin(t)), abs(w * math.sin(t)) + abs(h * math.cos(t)))
    m = CONTEXT * h
    x0, y0 = max(0, int(cx - ext[0] / 2 - m)), max(0, int(cy - ext[1] / 2 - m))
    x1, y1 = min(img.shape[1], int(math.ceil(cx + ext[0] / 2 + m))), min(img.shape[0], int(math.ceil(cy + ext[1] / 2 + m)))
    return np.ascontiguousarray(img[y0:y1, x0:x1]), (cx - x0, cy - y0, w, h, ang)


def augment_crop(rng, img, box, width, camera=1.0):
    """A rectified crop as a camera might have taken it: random geometry (centre, size, angle, shear, then a
    perspective tilt of the rectified crop) and photometry (defocus or motion blur, lower resolution, contrast,
    brightness, an illumination gradient, gamma, sensor noise, JPEG compression, channel order). `camera` (0..1)
    scales how often the camera's distortions (perspective, motion, resolution, gradient, gamma, JPEG) apply: the
    trainer ramps it up over the first steps, which reach the end of CTC's blank plateau sooner on cleaner crops
    (plates-eu-br, 600 steps: character accuracy 0.48 with them all from the start, 0.64-0.66 without)."""
    cx, cy, w, h, ang = box
    jitter = (cx + rng.uniform(-0.06, 0.06) * h, cy + rng.uniform(-0.06, 0.06) * h,
              w * rng.uniform(0.92, 1.08) + rng.uniform(-0.3, 0.2) * h, h * rng.uniform(0.9, 1.15),
              ang + rng.uniform(-4, 4))
    x = rectify(img, jitter, width, shear=rng.uniform(-0.25, 0.25)).transpose(1, 2, 0)
    if rng.random() < 0.2 * camera:
        x = perspective(rng, x, content_width(jitter[2], jitter[3], width))
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.3))
    elif rng.random() < 0.1 * camera:  # motion along the line
        k = rng.randint(3, 5)
        x = cv2.filter2D(x, -1, np.full((1, k), 1.0 / k, np.float32), borderType=cv2.BORDER_REPLICATE)
    if rng.random() < 0.15 * camera:  # a smaller, farther or cheaper camera: fewer pixels on the text
        f = rng.uniform(0.35, 0.75)
        small = cv2.resize(x, (max(4, int(width * f)), max(4, int(REC_HEIGHT * f))), interpolation=cv2.INTER_AREA)
        x = cv2.resize(small, (width, REC_HEIGHT), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.8:
        mean = float(x.mean())
        x = (x - mean) * rng.uniform(0.5, 1.3) + mean + rng.uniform(-0.15, 0.15)
    if rng.random() < 0.2 * camera:  # light falling off across the crop
        a = rng.uniform(0, 2 * np.pi)
        u = np.cos(a) * np.linspace(-1, 1, width)[None, :] + np.sin(a) * np.linspace(-1, 1, REC_HEIGHT)[:, None]
        x = x * (1 + rng.uniform(0.1, 0.4) * u[..., None])
    if rng.random() < 0.15 * camera:
        x = np.clip(x, 0, 1) ** rng.uniform(0.6, 1.6)
    if rng.random() < 0.5:
        x = x + np.random.default_rng(rng.randrange(2 ** 31)).normal(0, rng.uniform(0.01, 0.06), x.shape)
    if rng.random() < 0.15 * camera:
        ok, buf = cv2.imencode(".jpg", (np.clip(x, 0, 1) * 255).astype(np.uint8),
                               [cv2.IMWRITE_JPEG_QUALITY, rng.randint(15, 60)])
        x = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED).astype(np.float32) / 255 if ok else x
    if rng.random() < 0.2:
        x = x[..., rng.sample(range(3), 3)]
    if rng.random() < 0.1:
        x = 1 - x
    return np.ascontiguousarray(np.clip(x, 0, 1).transpose(2, 0, 1)).astype(np.float32)


def perspective(rng, x, cw):
    """The text part (the first cw columns) of a rectified crop seen at a slant: each corner moved by up to 12 % of
    the height (vertically) and 4 % of the text width (horizontally); border pixels repeated."""
    h = x.shape[0]
    src = np.float32([[0, 0], [cw, 0], [cw, h], [0, h]])
    dst = src + np.float32([[rng.uniform(-0.04, 0.04) * cw, rng.uniform(-0.12, 0.12) * h] for _ in range(4)])
    m = cv2.getPerspectiveTransform(src, dst)
    out = x.copy()
    out[:, :cw] = cv2.warpPerspective(np.ascontiguousarray(x[:, :cw]), m, (cw, h), flags=cv2.INTER_LINEAR,
                                      borderMode=cv2.BORDER_REPLICATE)
    return out


class RecTrainSet(torch.utils.data.Dataset):
    """One epoch: every real text crop (repeated up to MIN_SAMPLES / 2 on small data), augmented, and as many
    synthetic lines. Items are (crop (3, 32, width), class indices)."""

    def __init__(self, crops, charset, width, backgrounds, seed):
        self.crops, self.width = crops, width  # crops: [(context image RGB, box, text)]
        self.index = {c: k + 1 for k, c in enumerate(charset)}
        self.renderer = Renderer(charset, [t for _, _, t in crops],
                                 [text_colours(rectify_u8(img, box)) for img, box, _ in crops[:200]], backgrounds,
                                 [b[2] / max(b[3] * len(t), 1e-6) for _, b, t in crops])
        n_real = max(len(crops), math.ceil(MIN_SAMPLES * (1 - SYNTHETIC_SHARE)))
        self.n_real = n_real
        self.n = n_real + round(n_real * SYNTHETIC_SHARE / (1 - SYNTHETIC_SHARE))
        self.seed, self.epoch = seed, 0
        self.max_text = max(len(t) for _, _, t in crops)
        self.camera = 1.0  # how often camera distortions apply (augment_crop; train.py ramps it up)
        self.max_len = None  # the curriculum's cap on the length of random synthetic strings (train.py sets it)
        self._synth = {}  # rendered lines, re-rendered every RENDER_EVERY epochs (rendering costs ~4x a real crop)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = random.Random((self.seed * 1000003 + self.epoch * 7919 + i) % 2 ** 63)
        if i < self.n_real:
            img, box, text = self.crops[i % len(self.crops)]
        else:
            if i not in self._synth or (self.epoch + i) % RENDER_EVERY == 0 or self.max_len:
                self._synth[i] = self.renderer.sample(rng, self.max_len)
            img, box, text = self._synth[i]
        return torch.from_numpy(augment_crop(rng, img, box, self.width, self.camera)), encode(text, self.index)


def rectify_u8(img, box):
    return (rectify(img, box, max(8, int(REC_HEIGHT * box[2] / max(box[3], 1)))).transpose(1, 2, 0) * 255).astype(np.uint8)


def collate(batch):
    x = torch.stack([b[0] for b in batch])
    lengths = torch.tensor([len(b[1]) for b in batch], dtype=torch.long)
    targets = torch.tensor([c for b in batch for c in b[1]], dtype=torch.long)
    return x, targets, lengths


def background_patches(records, texts, rng, n=64, size=96):
    """Patches of the training images away from their text boxes, as backgrounds for synthetic lines."""
    out = []
    for r in rng.sample(records, min(len(records), n)):
        img = read_rgb(r)
        H, W = img.shape[:2]
        boxes = [b for _, b, _ in texts.get(r["id"], [])]
        for _ in range(3):
            s = min(size, H, W)
            x0, y0 = rng.randint(0, W - s), rng.randint(0, H - s)
            if all(abs(x0 + s / 2 - b[0]) > (s + b[2]) / 2 or abs(y0 + s / 2 - b[1]) > (s + b[3]) / 2 for b in boxes):
                out.append(np.ascontiguousarray(img[y0:y0 + s, x0:x0 + s]))
                break
    return out
