"""Torch datasets over COCO records: augmented training samples and letterboxed evaluation samples."""
import random

import cv2
import numpy as np
import torch

from loupe_engine.data import augment as A


def corners_to_target(pts, rotated):
    """(n,4,2) corners -> (n,4) xyxy, or (n,5) cx,cy,w,h,theta(rad) for rotated boxes."""
    if not len(pts):
        return np.zeros((0, 5 if rotated else 4), np.float32)
    if not rotated:
        return np.concatenate([pts.min(1), pts.max(1)], 1).astype(np.float32)
    out = []
    for p in pts:
        (cx, cy), (w, h), ang = cv2.minAreaRect(p.astype(np.float32))
        out.append([cx, cy, w, h, np.deg2rad(ang)])
    return np.array(out, np.float32)


class Images:
    """Decoded-image access with an optional RAM cache (images kept at long side = imgsz)."""

    def __init__(self, records, imgsz, cache):
        self.records, self.imgsz, self.cache = records, imgsz, cache
        self._mem = {}

    def get(self, i):
        if i in self._mem:
            return self._mem[i]
        r = self.records[i]
        img = r.pop("img", None)
        if img is None:
            img = cv2.imread(r["path"], cv2.IMREAD_COLOR)
        out = A.resize_long(img, r["pts"], self.imgsz)
        if self.cache:
            self._mem[i] = out
        return out


class TrainSet(torch.utils.data.Dataset):
    def __init__(self, records, cfg, rotated):
        self.records, self.cfg, self.rotated = records, cfg, rotated
        self.images = Images(records, cfg.imgsz, cfg.cache)
        self.s = cfg.imgsz
        self.out = cfg.crop or cfg.imgsz
        self.mosaic_on = True

    def __len__(self):
        return len(self.records)

    def _one(self, i):
        img, pts = self.images.get(i)
        return img, self.records[i]["cls"], pts

    def _geometric(self, i):
        cfg, s = self.cfg, self.s
        if self.mosaic_on and random.random() < cfg.mosaic:
            idx = [i] + random.choices(range(len(self)), k=3)
            img, cls, pts, centre = A.mosaic4([self._one(j) for j in idx], s)
            extent = (s, s)
        else:
            img, cls, pts = self._one(i)
            centre = (img.shape[1] / 2, img.shape[0] / 2)
            extent = (img.shape[1], img.shape[0])
        img, pts = A.random_affine(img, pts, (self.out, self.out), centre, extent, cfg)
        cls, pts = A.filter_boxes(cls, pts, self.out, self.out, self.rotated)
        return img, cls, pts

    def __getitem__(self, i):
        cfg = self.cfg
        img, cls, pts = self._geometric(i)
        if self.mosaic_on and cfg.mixup and random.random() < cfg.mixup:
            img, cls, pts = A.mixup((img, cls, pts), self._geometric(random.randrange(len(self))))
        if self.mosaic_on and cfg.cutmix and random.random() < cfg.cutmix:
            img, cls, pts = A.cutmix((img, cls, pts), self._geometric(random.randrange(len(self))), self.rotated)
        if cfg.copy_paste and random.random() < cfg.copy_paste:
            img, cls, pts = A.copy_paste(img, cls, pts, 0.5)
        img = A.hsv(img, cfg.hsv_h, cfg.hsv_s, cfg.hsv_v)
        if cfg.auto_augment and random.random() < cfg.auto_augment:
            img = A.auto_augment(img)
        if cfg.erasing and random.random() < cfg.erasing:
            img, cls, pts = A.erase(img, cls, pts)
        if random.random() < cfg.fliplr:
            img, pts = A.flip(img, pts, True)
        if random.random() < cfg.flipud:
            img, pts = A.flip(img, pts, False)
        if cfg.transpose and random.random() < cfg.transpose:
            img, pts = A.transpose(img, pts)
        rgb = random.random() >= cfg.bgr  # the model sees RGB; bgr swaps it back as an augmentation
        img = img[..., ::-1] if rgb else img
        return to_tensor(img), cls, corners_to_target(pts, self.rotated)


class RectTrainSet(TrainSet):
    """rect=true: aspect-preserving batches; images sorted by aspect so each batch pads little."""

    def __init__(self, records, cfg, rotated, batch):
        super().__init__(records, cfg, rotated)
        ar = np.array([r["height"] / r["width"] for r in records])
        self.order = np.argsort(ar)
        self.shapes = {}
        for b in range(0, len(records), batch):
            grp = ar[self.order[b:b + batch]]
            lo, hi = grp.min(), grp.max()
            shape = [1, hi] if hi < 1 else ([1 / lo, 1] if lo > 1 else [1, 1])
            hw = (np.ceil(np.array([shape[1], shape[0]]) * self.s / 32) * 32).astype(int)
            for k in self.order[b:b + batch]:
                self.shapes[int(k)] = (int(hw[0]), int(hw[1]))

    def __getitem__(self, j):
        i = int(self.order[j])
        img, cls, pts = self._one(i)
        h, w = self.shapes[i]
        img, r, (px, py) = A.letterbox(img, (h, w))
        pts = pts * r + [px, py]
        img = A.hsv(img, self.cfg.hsv_h, self.cfg.hsv_s, self.cfg.hsv_v)
        if random.random() < self.cfg.fliplr:
            img, pts = A.flip(img, pts, True)
        # Drawn only when on, so recipes without them keep their random streams. A transposed image fits its batch
        # only when the batch is square.
        if self.cfg.flipud and random.random() < self.cfg.flipud:
            img, pts = A.flip(img, pts, False)
        if self.cfg.transpose and h == w and random.random() < self.cfg.transpose:
            img, pts = A.transpose(img, pts)
        return to_tensor(img[..., ::-1]), self.records[i]["cls"], corners_to_target(pts.astype(np.float32),
                                                                                     self.rotated)

    def non_square(self):
        """How many images sit in batches that are not square (transpose cannot apply to them)."""
        return sum(h != w for h, w in self.shapes.values())


class EvalSet(torch.utils.data.Dataset):
    """Letterboxed to a fixed (h, w), the same pre-processing as export and packages/runtime."""

    def __init__(self, records, shape, rotated):
        self.records, self.shape, self.rotated = records, shape, rotated

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        r = self.records[i]
        img = r.get("img")
        if img is None:
            img = cv2.imread(r["path"], cv2.IMREAD_COLOR)
        img, ratio, pad = A.letterbox(img, self.shape)
        pts = r["pts"] * ratio + np.array(pad, np.float32)
        return to_tensor(img[..., ::-1]), r["cls"], corners_to_target(pts.astype(np.float32), self.rotated), \
            (i, ratio, pad)


def to_tensor(img):
    return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))


def collate(batch):
    imgs = torch.stack([b[0] for b in batch])
    rows = []
    for k, b in enumerate(batch):
        n = len(b[1])
        if n:
            rows.append(np.concatenate([np.full((n, 1), k), b[1][:, None], b[2]], 1))
    width = 2 + batch[0][2].shape[1]
    targets = torch.from_numpy(np.concatenate(rows).astype(np.float32)) if rows else torch.zeros(0, width)
    extra = [b[3] for b in batch] if len(batch[0]) > 3 else None
    return imgs, targets, extra
