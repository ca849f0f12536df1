"""Segmentation data: COCO polygons in, label maps out, and the augmented training set.

Label maps (`overlap_mask`, engine/README.md):
- overlap_mask=true: one uint8 class map, 0 = background, c+1 = class c. Where polygons overlap, the smaller
  instance is drawn last and wins (a part inside a larger part keeps its own class); equal areas: later wins.
- overlap_mask=false: one binary plane per class; a pixel may belong to several classes, instances of the same
  class merge.
A record carries `cls` (n,) and `polys` (n lists of (k, 2) float arrays, several parts per instance allowed) in
image pixels, where pixel (i, j) covers [i, i+1) x [j, j+1); `pts` stays empty so the shared image cache works.
"""
import os
import random

import cv2
import numpy as np
import torch

from loupe_engine.data import augment as A
from loupe_engine.data.coco import _read_json
from loupe_engine.data.dataset import Images, to_tensor
from loupe_engine.data.raster import fill_polygon
from loupe_engine.events import EngineError, log

OUTSIDE_TOLERANCE = 1.0  # px a polygon vertex may lie outside its image (rounding of labelling tools)
MAX_AUTO_SIZE = 2048  # the largest imgsz auto_size picks (its tiles train at default / 2 whatever the size)


def _parts(a):
    """Polygon parts of an annotation: its COCO polygons, else its rotated or plain box as 4 corners."""
    seg = a.get("segmentation")
    if isinstance(seg, dict):
        return None, "is RLE; give polygons"
    if isinstance(seg, list) and seg:
        parts = [np.asarray(p, np.float32).reshape(-1, 2) for p in seg if isinstance(p, list) and len(p) >= 6]
        return (parts, None) if parts else (None, "has no polygon with 3 or more points")
    if a.get("rbox") is not None:
        cx, cy, w, h, ang = [float(v) for v in a["rbox"]]
        return [cv2.boxPoints(((cx, cy), (w, h), ang)).astype(np.float32)], "box"
    b = a.get("bbox")
    if b and len(b) == 4 and b[2] > 0 and b[3] > 0:
        x, y, w, h = [float(v) for v in b]
        return [np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)], "box"
    return None, "has no segmentation"


def poly_area(parts):
    area = 0.0
    for p in parts:
        x, y = p[:, 0].astype(np.float64), p[:, 1].astype(np.float64)
        area += abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2
    return area


def load_polygons(path, images_dir, names=None, split=None, need_labels=True):
    """Read a COCO file with polygons; returns (records, names, cat_ids). `names` pins a trained model's classes."""
    d = _read_json(path)
    cats = d.get("categories") or []
    if names is None:
        names = [c["name"] for c in cats]
    idx = {n: i for i, n in enumerate(names)}
    cat_map = {c["id"]: idx[c["name"]] for c in cats if c["name"] in idx}
    images = d["images"]
    if split and any("split" in im for im in images):
        images = [im for im in images if im.get("split") in split]
    if not images:
        raise EngineError("empty_dataset", f"{path}: no images" + (f" in split {'/'.join(split)}" if split else ""))
    by_img = {}
    for a in d.get("annotations") or []:
        by_img.setdefault(a.get("image_id"), []).append(a)
    records, problems, boxes = [], [], 0
    for im in images:
        W, H = im.get("width") or 0, im.get("height") or 0
        if not W or not H:
            img = cv2.imread(os.path.join(images_dir, im["file_name"]))
            if img is None:
                problems.append(f"image {im['file_name']} does not decode")
                continue
            H, W = img.shape[:2]
        cls, polys = [], []
        for a in by_img.get(im["id"], []):
            if a.get("category_id") not in cat_map:
                if cats and any(c["id"] == a.get("category_id") for c in cats):
                    continue  # a category this model does not know
                problems.append(f"annotation {a.get('id')} names unknown category {a.get('category_id')}")
                continue
            parts, note = _parts(a)
            if parts is None:
                problems.append(f"annotation {a.get('id')} of {im['file_name']} {note}")
                continue
            boxes += note == "box"
            allp = np.concatenate(parts)
            lo, hi = allp.min(0), allp.max(0)
            if lo.min() < -OUTSIDE_TOLERANCE or hi[0] > W + OUTSIDE_TOLERANCE or hi[1] > H + OUTSIDE_TOLERANCE:
                problems.append(f"polygon of annotation {a.get('id')} lies outside image {im['file_name']} ({W}x{H}): "
                                f"x {lo[0]:.1f}..{hi[0]:.1f}, y {lo[1]:.1f}..{hi[1]:.1f}")
                continue
            cls.append(cat_map[a["category_id"]])
            polys.append([np.clip(p, 0, [W, H]).astype(np.float32) for p in parts])
        records.append({"id": im["id"], "file": im["file_name"], "path": os.path.join(images_dir, im["file_name"]),
                        "width": int(W), "height": int(H), "cls": np.array(cls, np.int64), "polys": polys,
                        "pts": np.zeros((0, 4, 2), np.float32)})
    if problems:
        more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
        raise EngineError("dataset_invalid", f"{path}: " + "; ".join(problems[:8]) + more)
    if boxes:
        log(f"note: {boxes} annotations without polygons are segmented as their (rotated) boxes")
    if need_labels:
        if not names:
            raise EngineError("empty_dataset", f"{path}: no categories")
        counts = np.bincount(np.concatenate([r["cls"] for r in records] + [np.zeros(0, np.int64)]),
                             minlength=len(names))
        if counts.sum() == 0:
            raise EngineError("empty_dataset", f"{path}: no polygons to train on")
        empty = [names[i] for i in range(len(names)) if counts[i] == 0]
        if empty:
            raise EngineError("category_without_polygons",
                              f"{path}: categories with no polygons: {', '.join(empty)}; label some or remove them")
    return records, list(names), {v: k for k, v in cat_map.items()}


def rasterize(cls, polys, hw, nc, overlap, scale=1.0, offset=(0.0, 0.0)):
    """Label map (h, w, 1) class map, or (h, w, nc) binary planes, of polygons scaled then shifted (exact
    pixel-centre rule of data/raster.py)."""
    h, w = hw
    planes = np.zeros((1 if overlap else nc, h, w), np.uint8)
    order = np.argsort([-poly_area(p) for p in polys], kind="stable") if overlap else range(len(polys))
    off = np.asarray(offset, np.float32)
    for k in order:
        pts = [p * scale + off for p in polys[k]]
        c = int(cls[k])
        if overlap:
            fill_polygon(planes[0], pts, c + 1)
        else:
            fill_polygon(planes[c], pts, 1)
    return np.ascontiguousarray(planes.transpose(1, 2, 0))


def warp(arr, M, size, perspective, nearest, border):
    """cv2 warps of any channel count (in chunks of up to 4 channels)."""
    out = []
    interp = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
    for k in range(0, arr.shape[2], 4):
        a = np.ascontiguousarray(arr[..., k:k + 4])
        b = (border,) * a.shape[2]
        if perspective:
            o = cv2.warpPerspective(a, M, dsize=size, flags=interp, borderValue=b)
        else:
            o = cv2.warpAffine(a, M[:2], dsize=size, flags=interp, borderValue=b)
        out.append(o.reshape(size[1], size[0], -1))
    return np.concatenate(out, 2)


class SegmentTrainSet(torch.utils.data.Dataset):
    """Mosaic, random affine, CutMix, copy-paste of mirrored instances, HSV, auto-augment, erasing, flips, BGR;
    the label map travels with every geometric op (nearest neighbour, background outside the image)."""

    def __init__(self, records, cfg, nc, overlap, centred=0.0):
        self.records, self.cfg, self.nc, self.overlap = records, cfg, nc, overlap
        self.images = Images(records, cfg.imgsz, cfg.cache)
        self.s, self.out = cfg.imgsz, cfg.crop or cfg.imgsz
        self.k = 1 if overlap else nc
        self.mosaic_on = True
        self.weights = sample_weights(records, nc)
        self.centred = centred  # probability that a crop (tile or mosaic window) is centred on a labelled pixel

    def __len__(self):
        return len(self.records)

    def _one(self, i):
        img, _ = self.images.get(i)
        r = self.records[i]
        lab = rasterize(r["cls"], r["polys"], img.shape[:2], self.nc, self.overlap, scale=img.shape[1] / r["width"])
        return np.concatenate([img, lab], 2)

    def _geometric(self, i):
        cfg, s, empty = self.cfg, self.s, (np.zeros(0, np.int64), np.zeros((0, 4, 2), np.float32))
        if self.mosaic_on and random.random() < cfg.mosaic:
            # the other three drawn like the sampler draws (defective images and rare classes more often)
            idx = [i] + random.choices(range(len(self)), weights=self.weights, k=3)
            stack, _, _, centre = A.mosaic4([(self._one(j), *empty) for j in idx], s, [A.PAD] * 3 + [0] * self.k)
            extent = (s, s)
            room = 2 * s > self.out
        else:
            stack = self._one(i)
            centre, extent = (stack.shape[1] / 2, stack.shape[0] / 2), (stack.shape[1], stack.shape[0])
            room = max(extent) > self.out
        if room and self.centred and random.random() < self.centred:
            # a window centred on a labelled pixel: thin, rare defects at full resolution instead of a window of
            # background (the affine's translate still moves it by up to +-translate of the window)
            ys, xs = np.nonzero(stack[..., 3:].any(2))
            if len(ys):
                j = random.randrange(len(ys))
                centre, extent = (xs[j] + 0.5, ys[j] + 0.5), (self.out, self.out)
        M = A.affine_matrix((self.out, self.out), centre, extent, cfg)
        size = (self.out, self.out)
        img = warp(stack[..., :3], M, size, cfg.perspective, False, A.PAD)
        lab = warp(stack[..., 3:], M, size, cfg.perspective, True, 0)
        return img, lab

    def __getitem__(self, i):
        cfg = self.cfg
        img, lab = self._geometric(i)
        if self.mosaic_on and cfg.cutmix and random.random() < cfg.cutmix:
            img, lab = cutmix((img, lab), self._geometric(random.randrange(len(self))))
        if cfg.copy_paste and random.random() < cfg.copy_paste:
            img, lab = copy_paste(img, lab, 0.5)
        img = A.hsv(img, cfg.hsv_h, cfg.hsv_s, cfg.hsv_v)
        if cfg.auto_augment and random.random() < cfg.auto_augment:
            img = A.auto_augment(img)
        if cfg.erasing and random.random() < cfg.erasing:
            img, lab = erase(img, lab)
        if random.random() < cfg.fliplr:
            img, lab = img[:, ::-1], lab[:, ::-1]
        if random.random() < cfg.flipud:
            img, lab = img[::-1], lab[::-1]
        if cfg.transpose and random.random() < cfg.transpose:
            img, lab = img.transpose(1, 0, 2), lab.transpose(1, 0, 2)  # square: x and y swap
        img = img[..., ::-1] if random.random() >= cfg.bgr else img  # the model sees RGB
        lab = np.ascontiguousarray(lab)
        target = torch.from_numpy(lab[..., 0]).long() if self.overlap else torch.from_numpy(lab.transpose(2, 0, 1))
        return to_tensor(img), target.contiguous(), i


def sample_weights(records, nc, free_share=1 / 3):
    """How often each training image is drawn: images with a rarer class more often (inverse square root of the
    class's image count, the rarest image class wins), and defect-free images together at most `free_share` of the
    draws (they stay in as negatives; a set that is 71 % defect-free otherwise shows a defect in under a third of
    its images and a model learns that "background" is nearly always right)."""
    counts = np.zeros(nc)
    for r in records:
        counts[np.unique(r["cls"])] += 1
    w = np.array([max((1 / counts[c] ** 0.5 for c in np.unique(r["cls"])), default=0.0) for r in records])
    free = w == 0
    if free.all():
        return np.ones(len(records)).tolist()
    w[~free] /= w[~free].mean()
    if free.any():
        share = min(free.mean(), free_share)  # never more than their own share of the set
        w[free] = share / (1 - share) * w[~free].sum() / free.sum()
    return w.tolist()


def thickness(polys):
    """Width of a thin shape: 2 x area / perimeter (a w x l strip: about w; a disc: its radius)."""
    area = poly_area(polys)
    per = sum(float(np.linalg.norm(np.diff(np.vstack([p, p[:1]]), axis=0), axis=1).sum()) for p in polys)
    return 2 * area / max(per, 1e-6)


def auto_size(records, default, min_thickness=4.0):
    """(imgsz, crop) from the training images and their labelled shapes when the user set no imgsz: the images'
    median long side (a multiple of 32, at least 64), so defects are seen at their own resolution -- upsampling
    small images to the default costs (default / side)^2 the time per image and adds no detail. Larger images are
    shrunk towards `default` only as far as the thinnest tenth of the shapes keeps `min_thickness` px (the head's
    stride is 4), to MAX_AUTO_SIZE at most; when that leaves them above `default`, training runs on
    full-resolution tiles of default / 2."""
    longs = sorted(max(r["width"], r["height"]) for r in records)
    long = longs[len(longs) // 2]
    thin = [thickness(p) for r in records for p in r["polys"]]
    scale = 1.0
    if long > default:
        t10 = float(np.percentile(thin, 10)) if thin else float("inf")
        scale = max(default / long, min(1.0, min_thickness / max(t10, 1e-6)))
    imgsz = min(MAX_AUTO_SIZE, max(64, int(np.ceil(long * scale / 32)) * 32))
    crop = (default // 2) // 32 * 32 if imgsz > default else 0
    return imgsz, crop


def cutmix(a, b):
    """A random rectangle (20-50% of the area) of sample b, image and labels, pasted into sample a."""
    img, lab = a[0].copy(), a[1].copy()
    h, w = img.shape[:2]
    lam = random.uniform(0.2, 0.5)
    ch, cw = int(h * lam ** 0.5), int(w * lam ** 0.5)
    y0, x0 = random.randint(0, h - ch), random.randint(0, w - cw)
    img[y0:y0 + ch, x0:x0 + cw] = b[0][y0:y0 + ch, x0:x0 + cw]
    lab[y0:y0 + ch, x0:x0 + cw] = b[1][y0:y0 + ch, x0:x0 + cw]
    return img, lab


def copy_paste(img, lab, p):
    """Mirror the sample; paste each mirrored instance (connected component, probability p) where it covers no
    labelled pixel."""
    fg = lab.any(2)
    if not fg.any():
        return img, lab
    fimg, flab = img[:, ::-1], lab[:, ::-1]
    n, comp = cv2.connectedComponents(np.ascontiguousarray(fg[:, ::-1]).astype(np.uint8), connectivity=8)
    img, lab = img.copy(), lab.copy()
    for k in range(1, n):
        m = comp == k
        if random.random() < p and not (m & lab.any(2)).any():
            img[m], lab[m] = fimg[m], flab[m]
    return img, lab


def erase(img, lab):
    """Random erasing; the erased pixels show no object any more, so they become background."""
    h, w = img.shape[:2]
    area = random.uniform(0.02, 0.2) * h * w
    ar = np.exp(random.uniform(np.log(0.3), np.log(3.3)))
    eh, ew = min(h, int((area * ar) ** 0.5)), min(w, int((area / ar) ** 0.5))
    x0, y0 = random.randint(0, w - ew), random.randint(0, h - eh)
    img, lab = img.copy(), lab.copy()
    img[y0:y0 + eh, x0:x0 + ew] = np.random.randint(0, 256, (eh, ew, 3), dtype=np.uint8)
    lab[y0:y0 + eh, x0:x0 + ew] = 0
    return img, lab


class SegEvalSet(torch.utils.data.Dataset):
    """Letterboxed to (h, w) like every evaluation and export; labels rasterized at that scale."""

    def __init__(self, records, shape, nc, overlap):
        self.records, self.shape, self.nc, self.overlap = records, shape, nc, overlap

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        r = self.records[i]
        img = r.get("img")
        if img is None:
            img = cv2.imread(r["path"], cv2.IMREAD_COLOR)
        img, ratio, pad = A.letterbox(img, self.shape)
        lab = rasterize(r["cls"], r["polys"], self.shape, self.nc, self.overlap, scale=ratio, offset=pad)
        target = torch.from_numpy(lab[..., 0]).long() if self.overlap else torch.from_numpy(lab.transpose(2, 0, 1))
        return to_tensor(img[..., ::-1]), target.contiguous(), (i, ratio, pad)


def collate(batch):
    return torch.stack([b[0] for b in batch]), torch.stack([b[1] for b in batch]), [b[2] for b in batch]
