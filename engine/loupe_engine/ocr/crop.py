"""Cut a rotated text box out of an image and rectify it: with some context around it (MARGIN of its height above
and below, MARGIN_X before and after), turned to horizontal, REC_HEIGHT px high, its natural width (capped at the
recognizer's input width), padded on the right. Bilinear sampling in float64, border pixels
repeated; packages/runtime/src/ocr.ts repeats this arithmetic exactly, so both read the same pixels.

Reading direction: a box whose long side is at least LINE_ASPECT times its short side reads along its long side
(angle folded to (-90, 90]); a squarer box (one or two characters) reads in the orientation closest to upright
(angle folded to (-45, 45]). The detector's boxes carry no reading direction, so labels and predictions both go
through `canonical`; text upside down reads upside down."""
import math

import numpy as np

REC_HEIGHT = 32  # recognizer input height in px
MARGIN = 0.1  # context above and below the box, as a share of its height
MARGIN_X = 0.25  # context before and after it: a predicted box a little short still holds its first and last character
PAD = 114 / 255  # value of the padding right of the text (the letterbox grey)
LINE_ASPECT = 2.0


def canonical(cx, cy, w, h, angle_deg):
    """(cx, cy, w, h, angle) of the same rectangle with w along the reading direction."""
    a, w, h = float(angle_deg), float(w), float(h)
    if max(w, h) >= LINE_ASPECT * min(w, h):
        if h > w:
            w, h, a = h, w, a + 90.0
        k = math.ceil((a - 90.0) / 180.0)
        a -= 180.0 * k
    else:
        k = math.ceil((a - 45.0) / 90.0)
        a -= 90.0 * k
        if k % 2:
            w, h = h, w
    return float(cx), float(cy), w, h, a


def content_width(w, h, width):
    """Columns the text fills in a crop of `width` columns: its natural width at REC_HEIGHT, at least 1."""
    m, mx = MARGIN * h, MARGIN_X * h
    natural = REC_HEIGHT * (w + 2 * mx) / max(h + 2 * m, 1e-6)
    return int(min(width, max(1, round(natural))))


def rectify(img, box, width, shear=0.0):
    """img: uint8 (H, W, 3) RGB; box: canonical (cx, cy, w, h, angle_deg). Returns float32 (3, REC_HEIGHT,
    width) in 0..1. `shear` (training augmentation) slants the sampling grid: u += shear * v."""
    cx, cy, w, h, ang = box
    H, W = img.shape[:2]
    m, mx = MARGIN * h, MARGIN_X * h
    cw = content_width(w, h, width)
    xs = (np.arange(cw, dtype=np.float64) + 0.5) / cw - 0.5
    ys = (np.arange(REC_HEIGHT, dtype=np.float64) + 0.5) / REC_HEIGHT - 0.5
    v = (ys * (h + 2 * m))[:, None]
    u = (xs * (w + 2 * mx))[None, :] + shear * v
    t = math.radians(ang)
    c, s = math.cos(t), math.sin(t)
    fx = np.clip(cx + u * c - v * s - 0.5, 0, W - 1)
    fy = np.clip(cy + u * s + v * c - 0.5, 0, H - 1)
    x0, y0 = np.floor(fx).astype(np.int64), np.floor(fy).astype(np.int64)
    x1, y1 = np.minimum(x0 + 1, W - 1), np.minimum(y0 + 1, H - 1)
    wx, wy = (fx - x0)[..., None], (fy - y0)[..., None]
    f = img.astype(np.float64)
    top = f[y0, x0] * (1 - wx) + f[y0, x1] * wx
    bot = f[y1, x0] * (1 - wx) + f[y1, x1] * wx
    out = np.full((REC_HEIGHT, width, 3), PAD, np.float64)
    out[:, :cw] = (top * (1 - wy) + bot * wy) / 255
    return np.ascontiguousarray(out.transpose(2, 0, 1)).astype(np.float32)


def corners_to_rbox(pts):
    """4 corners in rbox_corners order ((-w,-h), (w,-h), (w,h), (-w,h) turned) -> cx, cy, w, h, angle_deg."""
    p = np.asarray(pts, np.float64)
    ex, ey = p[1] - p[0], p[3] - p[0]
    cx, cy = p.mean(0)
    return float(cx), float(cy), float(np.hypot(*ex)), float(np.hypot(*ey)), float(np.degrees(np.arctan2(ex[1], ex[0])))


def rec_width_for(boxes, longest, lo=128, hi=256, stride=8):
    """Recognizer input width from the training data: the widest natural crop rounded up to 32, within [lo, hi]
    (wider lines are squeezed), then widened until the longest text gets 2 output steps per character plus one
    (CTC needs a blank between repeated characters), up to 1024."""
    widest = max((REC_HEIGHT * (b[2] + 2 * MARGIN_X * b[3]) / max(b[3] * (1 + 2 * MARGIN), 1e-6) for b in boxes),
                 default=lo)
    width = int(min(hi, max(lo, math.ceil(widest / 32) * 32)))
    return int(min(1024, max(width, math.ceil(stride * (2 * longest + 1) / 32) * 32)))
