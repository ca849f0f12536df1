"""Image + box augmentations. Boxes travel as four corners (n, 4, 2) so every geometric op is exact for
both axis-aligned and rotated boxes; the dataset turns corners back into its task's box at the end."""
import math
import random

import cv2
import numpy as np

PAD = 114


def letterbox(img, shape, color=PAD):
    """Resize keeping aspect, pad centred to `shape` (h, w). Returns img, ratio, (padx, pady).
    packages/runtime repeats this exactly: r = min(h/H0, w/W0), size = round(W0*r), round(H0*r), pad split evenly."""
    h0, w0 = img.shape[:2]
    r = min(shape[0] / h0, shape[1] / w0)
    nw, nh = int(round(w0 * r)), int(round(h0 * r))
    if (nw, nh) != (w0, h0):
        img = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
    px, py = (shape[1] - nw) / 2, (shape[0] - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = np.full((shape[0], shape[1], 3), color, np.uint8)
    out[top:top + nh, left:left + nw] = img
    return out, r, (left, top)


def resize_long(img, pts, size):
    h0, w0 = img.shape[:2]
    r = size / max(h0, w0)
    if r != 1:
        interp = cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR
        img = cv2.resize(img, (max(1, round(w0 * r)), max(1, round(h0 * r))), interpolation=interp)
    return img, pts * r


def mosaic4(samples, s, pad=PAD):
    """samples: 4 (img, cls, pts) at long side s. Returns a 2s x 2s canvas joined at a random centre.
    Images may carry extra channels (segmentation stacks its label maps on the image); `pad` is one value or
    one per channel."""
    canvas = np.empty((2 * s, 2 * s, samples[0][0].shape[2]), np.uint8)
    canvas[:] = pad
    xc, yc = (int(random.uniform(0.5 * s, 1.5 * s)) for _ in range(2))
    cls_all, pts_all = [], []
    for i, (img, cls, pts) in enumerate(samples):
        h, w = img.shape[:2]
        if i == 0:
            x1a, y1a, x2a, y2a = max(xc - w, 0), max(yc - h, 0), xc, yc
            x1b, y1b, x2b, y2b = w - (x2a - x1a), h - (y2a - y1a), w, h
        elif i == 1:
            x1a, y1a, x2a, y2a = xc, max(yc - h, 0), min(xc + w, 2 * s), yc
            x1b, y1b, x2b, y2b = 0, h - (y2a - y1a), min(w, x2a - x1a), h
        elif i == 2:
            x1a, y1a, x2a, y2a = max(xc - w, 0), yc, xc, min(2 * s, yc + h)
            x1b, y1b, x2b, y2b = w - (x2a - x1a), 0, w, min(y2a - y1a, h)
        else:
            x1a, y1a, x2a, y2a = xc, yc, min(xc + w, 2 * s), min(2 * s, yc + h)
            x1b, y1b, x2b, y2b = 0, 0, min(w, x2a - x1a), min(y2a - y1a, h)
        canvas[y1a:y2a, x1a:x2a] = img[y1b:y2b, x1b:x2b]
        cls_all.append(cls)
        pts_all.append(pts + np.array([x1a - x1b, y1a - y1b], np.float32))
    return canvas, np.concatenate(cls_all), np.concatenate(pts_all).reshape(-1, 4, 2), (xc, yc)


def random_affine(img, pts, out_wh, centre, extent, cfg):
    """Rotate/scale/shear/perspective/translate around `centre`, writing an out_wh image. `extent` is the size
    of the content around the centre; when the output is smaller (training tiles) the window moves randomly
    inside it so every part of the image is seen."""
    M = affine_matrix(out_wh, centre, extent, cfg)
    ow, oh = out_wh
    if cfg.perspective:
        img = cv2.warpPerspective(img, M, dsize=(ow, oh), borderValue=(PAD, PAD, PAD))
    else:
        img = cv2.warpAffine(img, M[:2], dsize=(ow, oh), borderValue=(PAD, PAD, PAD))
    n = len(pts)
    if n:
        xy = np.concatenate([pts.reshape(-1, 2), np.ones((n * 4, 1))], 1) @ M.T
        xy = xy[:, :2] / xy[:, 2:3] if cfg.perspective else xy[:, :2]
        pts = xy.reshape(n, 4, 2).astype(np.float32)
    return img, pts


def affine_matrix(out_wh, centre, extent, cfg):
    """The random 3x3 transform of random_affine; segmentation warps its label maps with the same matrix."""
    ow, oh = out_wh
    jx = max(0.0, extent[0] - ow) / 2
    jy = max(0.0, extent[1] - oh) / 2
    C = np.eye(3)
    C[0, 2] = -(centre[0] + random.uniform(-jx, jx))
    C[1, 2] = -(centre[1] + random.uniform(-jy, jy))
    Pm = np.eye(3)
    Pm[2, 0] = random.uniform(-cfg.perspective, cfg.perspective)
    Pm[2, 1] = random.uniform(-cfg.perspective, cfg.perspective)
    R = np.eye(3)
    a = random.uniform(-cfg.degrees, cfg.degrees)
    sc = random.uniform(1 - cfg.scale, 1 + cfg.scale)
    R[:2] = cv2.getRotationMatrix2D(angle=a, center=(0, 0), scale=sc)
    S = np.eye(3)
    S[0, 1] = math.tan(random.uniform(-cfg.shear, cfg.shear) * math.pi / 180)
    S[1, 0] = math.tan(random.uniform(-cfg.shear, cfg.shear) * math.pi / 180)
    T = np.eye(3)
    T[0, 2] = ow / 2 + random.uniform(-cfg.translate, cfg.translate) * ow
    T[1, 2] = oh / 2 + random.uniform(-cfg.translate, cfg.translate) * oh
    return T @ S @ R @ Pm @ C


def filter_boxes(cls, pts, w, h, rotated, min_size=2.0, min_visible=0.3):
    """Drop boxes that left the image or are mostly cut off; clip axis-aligned ones to the image."""
    if not len(pts):
        return cls, pts
    x0, y0 = pts[..., 0].min(1), pts[..., 1].min(1)
    x1, y1 = pts[..., 0].max(1), pts[..., 1].max(1)
    area = np.maximum(x1 - x0, 1e-6) * np.maximum(y1 - y0, 1e-6)
    cx0, cy0, cx1, cy1 = np.clip(x0, 0, w), np.clip(y0, 0, h), np.clip(x1, 0, w), np.clip(y1, 0, h)
    vis = (cx1 - cx0) * (cy1 - cy0) / area
    if rotated:
        c = pts.mean(1)
        keep = (c[:, 0] > 0) & (c[:, 0] < w) & (c[:, 1] > 0) & (c[:, 1] < h) & (vis > 0.6)
        side = np.linalg.norm(pts[:, 1] - pts[:, 0], axis=1), np.linalg.norm(pts[:, 2] - pts[:, 1], axis=1)
        keep &= (side[0] > min_size) & (side[1] > min_size)
        return cls[keep], pts[keep]
    keep = (vis > min_visible) & (cx1 - cx0 > min_size) & (cy1 - cy0 > min_size)
    b = np.stack([cx0, cy0, cx1, cy1], 1)[keep]
    pts = np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [2, 3]], b[:, [0, 3]]], 1).astype(np.float32)
    return cls[keep], pts


def hsv(img, hgain, sgain, vgain):
    if not (hgain or sgain or vgain):
        return img
    r = np.random.uniform(-1, 1, 3) * [hgain, sgain, vgain] + 1
    hue, sat, val = cv2.split(cv2.cvtColor(img, cv2.COLOR_BGR2HSV))
    x = np.arange(0, 256, dtype=r.dtype)
    lut_h = ((x * r[0]) % 180).astype(np.uint8)
    lut_s = np.clip(x * r[1], 0, 255).astype(np.uint8)
    lut_v = np.clip(x * r[2], 0, 255).astype(np.uint8)
    m = cv2.merge((cv2.LUT(hue, lut_h), cv2.LUT(sat, lut_s), cv2.LUT(val, lut_v)))
    return cv2.cvtColor(m, cv2.COLOR_HSV2BGR)


def flip(img, pts, horizontal):
    h, w = img.shape[:2]
    pts = pts.copy()
    if horizontal:
        img = img[:, ::-1]
        pts[..., 0] = w - pts[..., 0]
    else:
        img = img[::-1]
        pts[..., 1] = h - pts[..., 1]
    # keep the corner order clockwise after a mirror so rotated boxes keep a valid orientation
    return np.ascontiguousarray(img), pts[:, ::-1].copy()


def transpose(img, pts):
    """Mirror about the main diagonal (x and y swap). With the two flips it makes every 90-degree turn: the eight
    views a part has when it may arrive in any orientation (the views of test-time augmentation, tta.py)."""
    pts = pts[..., ::-1]
    # a mirror, so the corners are reversed to stay clockwise, as in flip
    return np.ascontiguousarray(img.transpose(1, 0, *range(2, img.ndim))), pts[:, ::-1].copy()


def mixup(a, b):
    r = np.random.beta(32.0, 32.0)
    img = (a[0].astype(np.float32) * r + b[0].astype(np.float32) * (1 - r)).astype(np.uint8)
    return img, np.concatenate([a[1], b[1]]), np.concatenate([a[2], b[2]]).reshape(-1, 4, 2)


def cutmix(a, b, rotated):
    """Paste a random rectangle of b into a; keep b's boxes inside it and a's boxes outside it."""
    img, h, w = a[0].copy(), a[0].shape[0], a[0].shape[1]
    lam = random.uniform(0.2, 0.5)
    cw, ch = int(w * math.sqrt(lam)), int(h * math.sqrt(lam))
    x0, y0 = random.randint(0, w - cw), random.randint(0, h - ch)
    img[y0:y0 + ch, x0:x0 + cw] = b[0][y0:y0 + ch, x0:x0 + cw]
    ca, pa = _outside(a[1], a[2], (x0, y0, x0 + cw, y0 + ch))
    cb, pb = filter_boxes(b[1], b[2] - [x0, y0], cw, ch, rotated)
    return img, np.concatenate([ca, cb]), np.concatenate([pa, pb + [x0, y0]]).reshape(-1, 4, 2).astype(np.float32)


def _outside(cls, pts, rect, max_cover=0.4):
    if not len(pts):
        return cls, pts
    x0, y0, x1, y1 = pts[..., 0].min(1), pts[..., 1].min(1), pts[..., 0].max(1), pts[..., 1].max(1)
    iw = np.clip(np.minimum(x1, rect[2]) - np.maximum(x0, rect[0]), 0, None)
    ih = np.clip(np.minimum(y1, rect[3]) - np.maximum(y0, rect[1]), 0, None)
    cover = iw * ih / np.maximum((x1 - x0) * (y1 - y0), 1e-6)
    keep = cover < max_cover
    return cls[keep], pts[keep]


def copy_paste(img, cls, pts, p):
    """Mirror the image, and paste each mirrored object (with probability p) where it overlaps nothing."""
    if not len(pts):
        return img, cls, pts
    h, w = img.shape[:2]
    fimg, fpts = flip(img, pts, True)
    out, new_cls, new_pts = img.copy(), [cls], [pts]
    mask = np.zeros((h, w), np.uint8)
    for j in np.random.permutation(len(pts)):
        if random.random() > p:
            continue
        cand = fpts[j]
        kc, _ = _outside(np.concatenate(new_cls), np.concatenate(new_pts).reshape(-1, 4, 2),
                         (*cand.min(0), *cand.max(0)), max_cover=0.3)
        if len(kc) < sum(len(c) for c in new_cls):
            continue
        cv2.fillPoly(mask, [np.round(cand).astype(np.int32)], 1)
        new_cls.append(cls[j:j + 1])
        new_pts.append(cand[None])
    out[mask > 0] = fimg[mask > 0]
    return out, np.concatenate(new_cls), np.concatenate(new_pts).reshape(-1, 4, 2)


def erase(img, cls, pts):
    """Random erasing: a grey-noise rectangle of 2-20% of the image; boxes it mostly hides are dropped."""
    h, w = img.shape[:2]
    area = random.uniform(0.02, 0.2) * h * w
    ar = math.exp(random.uniform(math.log(0.3), math.log(3.3)))
    eh, ew = min(h, int(math.sqrt(area * ar))), min(w, int(math.sqrt(area / ar)))
    x0, y0 = random.randint(0, w - ew), random.randint(0, h - eh)
    img = img.copy()
    img[y0:y0 + eh, x0:x0 + ew] = np.random.randint(0, 256, (eh, ew, 3), dtype=np.uint8)
    cls, pts = _outside(cls, pts, (x0, y0, x0 + ew, y0 + eh), max_cover=0.7)
    return img, cls, pts


def auto_augment(img):
    """One photometric op picked at random (RandAugment-style, geometry-free so boxes stay valid)."""
    op = random.randrange(7)
    if op == 0:
        ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)
        ycc[..., 0] = cv2.equalizeHist(ycc[..., 0])
        return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)
    if op == 1:  # autocontrast
        lo, hi = np.percentile(img, 1), np.percentile(img, 99)
        return np.clip((img.astype(np.float32) - lo) * 255 / max(hi - lo, 1), 0, 255).astype(np.uint8)
    if op == 2:  # sharpness
        blur = cv2.GaussianBlur(img, (0, 0), 1.0)
        return cv2.addWeighted(img, 1.5, blur, -0.5, 0)
    if op == 3:  # posterize
        bits = random.randint(4, 6)
        return (img >> (8 - bits)) << (8 - bits)
    if op == 4:  # contrast
        f = random.uniform(0.6, 1.4)
        m = img.mean()
        return np.clip((img.astype(np.float32) - m) * f + m, 0, 255).astype(np.uint8)
    if op == 5:  # blur
        return cv2.GaussianBlur(img, (3, 3), 0)
    return np.where(img > random.randint(160, 250), 255 - img, img).astype(np.uint8)  # solarize
