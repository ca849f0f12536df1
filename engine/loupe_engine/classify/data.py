"""Classification data: COCO files with image-level labels, or a folder of class folders; the augmented training
set and the batch-level mixup/CutMix.

COCO extension (engine/README.md): each `images` entry carries `category_id` (one class, single-label) or
`category_ids` (a list, possibly empty: multi-label). Any `category_ids` in the file makes the task multi-label.
Records look like detection's (empty `cls`/`pts`, so the shared image cache and letterboxed evaluation set work
unchanged) plus `label` (class index, or -1 when unknown) or `labels` (multi-hot float vector).
"""
import math
import os
import random

import numpy as np
import torch

from loupe_engine.data import augment as A
from loupe_engine.data.coco import _read_json
from loupe_engine.data.dataset import Images, to_tensor
from loupe_engine.events import EngineError, log

IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".mpo", ".webp")
SPLIT_DIRS = {"train": ("train",), "val": ("val", "valid", "validation"), "test": ("test",)}
VAL_EVERY = 5  # folder input without train/val folders: every 5th image of each class (sorted by name) validates


def _record(rid, file, path, w=0, h=0):
    return {"id": rid, "file": file, "path": path, "width": w, "height": h, "label": -1,
            "cls": np.zeros(0, np.int64), "pts": np.zeros((0, 4, 2), np.float32)}


def _fail_list(code, head, items):
    more = f" (and {len(items) - 8} more)" if len(items) > 8 else ""
    raise EngineError(code, f"{head}: {', '.join(map(str, items[:8]))}{more}")


# ---- COCO with image-level labels
def load_coco_labels(path, images_dir, names=None, split=None, need_labels=True, multi_label=None):
    """Returns (records, names, cat_ids, multi_label). `names` pins a trained model's class order."""
    d = _read_json(path)
    cats = d.get("categories") or []
    if names is None:
        names = [c["name"] for c in cats]
    idx = {n: i for i, n in enumerate(names)}
    cat_map = {c["id"]: idx[c["name"]] for c in cats if c["name"] in idx}
    images = d["images"]
    if split:
        if any("split" in im for im in images):
            images = [im for im in images if im.get("split") in split]
    if not images:
        raise EngineError("empty_dataset", f"{path}: no images" + (f" in split {'/'.join(split)}" if split else ""))
    if multi_label is None:
        multi_label = any("category_ids" in im for im in d["images"])
    records, unlabeled, unknown = [], [], []
    for im in images:
        r = _record(im["id"], im["file_name"], os.path.join(images_dir, im["file_name"]), im.get("width") or 0,
                    im.get("height") or 0)
        ids = im["category_ids"] if "category_ids" in im else ([im["category_id"]] if "category_id" in im
                                                                else None)
        if not isinstance(ids, (list, type(None))):
            ids = [ids]
        labelled = ids is not None and (multi_label or len(ids) == 1)
        if not labelled:
            unlabeled.append(im["file_name"])
            ids = []
        bad = [c for c in ids if c not in cat_map]
        if bad and not (cats and all(any(c["id"] == b for c in cats) for b in bad)):
            unknown.append(f"{im['file_name']} -> {bad}")  # (a known category the model lacks is only skipped)
        ids = [cat_map[c] for c in ids if c in cat_map]
        if labelled and multi_label:
            r["labels"] = np.zeros(len(names), np.float32)
            r["labels"][ids] = 1.0
        elif labelled and ids:
            r["label"] = ids[0]
        records.append(r)
    if unknown:
        _fail_list("dataset_invalid", f"{path}: images name unknown categories", unknown)
    if need_labels:
        if unlabeled:
            what = "a category_ids list" if multi_label else "one category_id"
            _fail_list("image_without_class", f"{path}: images without a class (give each image {what})", unlabeled)
        check_classes(records, names, multi_label, path)
    return records, list(names), {v: k for k, v in cat_map.items()}, multi_label


def check_classes(records, names, multi_label, where):
    if not names:
        raise EngineError("empty_dataset", f"{where}: no categories")
    counts = class_counts(records, len(names), multi_label)
    empty = [names[i] for i in range(len(names)) if counts[i] == 0]
    if empty:
        raise EngineError("category_without_images",
                          f"{where}: categories with no training images: {', '.join(empty)}; label some or remove them")
    if len(names) < 2 and not multi_label:
        raise EngineError("dataset_invalid", f"{where}: single-label classification needs at least 2 classes")


def class_counts(records, nc, multi_label):
    if multi_label:
        return np.sum([r["labels"] for r in records if "labels" in r] or [np.zeros(nc)], 0)
    return np.bincount([r["label"] for r in records if r["label"] >= 0], minlength=nc)


# ---- folder of class folders
def _images_in(folder):
    return sorted(f for f in os.listdir(folder) if f.lower().endswith(IMAGE_EXT)
                  and os.path.isfile(os.path.join(folder, f)))


def _class_dirs(folder):
    return sorted(d for d in os.listdir(folder) if os.path.isdir(os.path.join(folder, d)) and not d.startswith("."))


def _split_dirs(root):
    """train/val(/test) sub-folders that each hold class folders, or None."""
    found = {}
    for split, aliases in SPLIT_DIRS.items():
        for a in aliases:
            p = os.path.join(root, a)
            if os.path.isdir(p) and _class_dirs(p):
                found[split] = p
                break
    return found if "train" in found else None


def load_folder(root, names=None, need_labels=True):
    """A folder of class folders (`root/<class>/*.jpg`), optionally under `train/` and `val/`. Returns
    ({split: records}, names). A flat folder of images (no class folders) gives unlabeled records (testing)."""
    if not os.path.isdir(root):
        raise EngineError("dataset_missing", f"dataset folder not found: {root}")
    splits = _split_dirs(root)
    layout = splits or {"all": root}
    if names is None:
        names = sorted({c for p in layout.values() for c in _class_dirs(p)})
    loose = _images_in(root)
    if not names or (loose and not splits and not _class_dirs(root)):
        if need_labels:
            raise EngineError("empty_dataset" if not loose else "image_without_class",
                              f"{root}: no class folders" + (f"; images directly in it have no class: "
                                                             f"{', '.join(loose[:5])}" if loose else "")
                              + " (put each class's images in a folder named after the class)")
        return {"all": [_record(i + 1, f, os.path.join(root, f)) for i, f in enumerate(loose)]}, list(names or [])
    if loose and need_labels:
        _fail_list("image_without_class", f"{root}: images outside any class folder", loose)
    idx = {n: i for i, n in enumerate(names)}
    out, rid = {}, 0
    for split, folder in layout.items():
        recs = []
        for c in _class_dirs(folder):
            if c not in idx:
                if need_labels:
                    raise EngineError("dataset_invalid", f"{folder}/{c}: class not known to the model "
                                      f"({', '.join(names)})")
                continue
            for f in _images_in(os.path.join(folder, c)):
                rid += 1
                r = _record(rid, f"{os.path.relpath(os.path.join(folder, c), root)}/{f}", os.path.join(folder, c, f))
                r["label"] = idx[c]
                recs.append(r)
        out[split] = recs
    if "all" in out and need_labels:
        train, val = [], []
        for c in range(len(names)):
            group = [r for r in out["all"] if r["label"] == c]
            for k, r in enumerate(group):
                (val if len(group) > 1 and k % VAL_EVERY == min(VAL_EVERY, len(group)) - 1 else train).append(r)
        out = {"train": train, "val": val}
        log(f"{root}: no train/val folders; every {VAL_EVERY}th image of each class validates "
            f"({len(train)} train / {len(val)} val)")
    if need_labels:
        check_classes(out["train"], names, False, root)
    return out, list(names)


# ---- training samples
class ClassifyTrainSet(torch.utils.data.Dataset):
    """Resize (long side imgsz), random affine into an imgsz square, photometric ops, erasing, flips."""

    def __init__(self, records, cfg, multi_label):
        self.records, self.cfg, self.multi_label = records, cfg, multi_label
        self.images = Images(records, cfg.imgsz, cfg.cache)
        self.s = cfg.imgsz

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        cfg, s = self.cfg, self.s
        img, _ = self.images.get(i)
        h, w = img.shape[:2]
        img, _ = A.random_affine(img, np.zeros((0, 4, 2), np.float32), (s, s), (w / 2, h / 2), (w, h), cfg)
        img = A.hsv(img, cfg.hsv_h, cfg.hsv_s, cfg.hsv_v)
        if cfg.auto_augment and random.random() < cfg.auto_augment:
            img = A.auto_augment(img)
        if cfg.erasing and random.random() < cfg.erasing:
            img, _, _ = A.erase(img, np.zeros(0, np.int64), np.zeros((0, 4, 2), np.float32))
        if random.random() < cfg.fliplr:
            img = img[:, ::-1]
        if random.random() < cfg.flipud:
            img = img[::-1]
        if cfg.transpose and random.random() < cfg.transpose:
            img = img.transpose(1, 0, 2)  # square: x and y swap
        img = img[..., ::-1] if random.random() >= cfg.bgr else img  # the model sees RGB
        r = self.records[i]
        return to_tensor(img), (r["labels"] if self.multi_label else r["label"]), i


def collate(batch):
    imgs = torch.stack([b[0] for b in batch])
    if isinstance(batch[0][1], np.ndarray):
        targets = torch.from_numpy(np.stack([b[1] for b in batch]))
    else:
        targets = torch.tensor([b[1] for b in batch], dtype=torch.long)
    return imgs, targets, [b[2] for b in batch]


def balanced_sampler(records, nc):
    """Single-label data whose largest class has at least twice the images of its smallest: draw every class
    equally often (with replacement); an epoch keeps its length."""
    counts = class_counts(records, nc, False)
    if counts.min() * 2 > counts.max():
        return None
    w = 1.0 / counts[[r["label"] for r in records]]
    log(f"class-balanced sampling: class sizes {counts.min()}..{counts.max()}")
    return torch.utils.data.WeightedRandomSampler(torch.as_tensor(w, dtype=torch.double), len(records),
                                                  replacement=True)


def mix_batch(imgs, targets, nc, mixup, cutmix):
    """Batch-level mixup (lambda ~ Beta(0.8, 0.8)) and CutMix (area ~ U(0, 1)) with soft targets; each applies
    to a whole batch with its probability. Targets come back as (B, nc) probabilities."""
    if targets.dim() == 1:
        targets = torch.nn.functional.one_hot(targets, nc).float()
    perm = torch.randperm(len(imgs), device=imgs.device)
    if mixup and random.random() < mixup:
        lam = float(np.random.beta(0.8, 0.8))
        imgs = imgs * lam + imgs[perm] * (1 - lam)
        targets = targets * lam + targets[perm] * (1 - lam)
    elif cutmix and random.random() < cutmix:
        h, w = imgs.shape[2:]
        cut = math.sqrt(1 - random.random())
        ch, cw = int(h * cut), int(w * cut)
        y0, x0 = random.randint(0, h - ch), random.randint(0, w - cw)
        imgs = imgs.clone()
        imgs[:, :, y0:y0 + ch, x0:x0 + cw] = imgs[perm, :, y0:y0 + ch, x0:x0 + cw]
        lam = 1 - ch * cw / (h * w)
        targets = targets * lam + targets[perm] * (1 - lam)
    return imgs, targets
