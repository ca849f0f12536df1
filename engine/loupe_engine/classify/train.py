"""Classification trainer: the shared BaseTrainer loop with classification data, model, loss and validation."""
import os
import random

import torch
import torch.nn.functional as F

from loupe_engine.classify.data import (ClassifyTrainSet, balanced_sampler, class_counts, collate,
                                        load_coco_labels, load_folder, mix_batch)
from loupe_engine.classify.loss import ClassifyLoss, multi_label_pos_weight
from loupe_engine.classify.val import evaluate
from loupe_engine.data import balance
from loupe_engine.data.coco import check_images
from loupe_engine.events import EngineError, log
from loupe_engine.models.classifier import Classifier
from loupe_engine.trainer.base import BaseTrainer

VAL_DURING_TRAINING = 500  # images validated each epoch; the final evaluation uses them all
RAM_BUDGET = 2e9  # bytes of decoded validation images kept in memory


def load_train_val(data, val, images):
    """(train records, val records, names, cat_ids, multi_label) from a COCO file or a folder of class folders."""
    if os.path.isdir(data):
        splits, names = load_folder(data)
        train, val_recs = splits["train"], splits.get("val", [])
        if val:
            val_recs = _any_folder_or_coco(val, images, names)
        cat_ids, multi = {i: i + 1 for i in range(len(names))}, False
    else:
        if not images:
            raise EngineError("missing_argument", "--images is required with a COCO file (the folder its file "
                              "names are relative to)")
        if val:
            train, names, cat_ids, multi = load_coco_labels(data, images)
            val_recs = _any_folder_or_coco(val, images, names, multi)
        else:
            train, names, cat_ids, multi = load_coco_labels(data, images, split=("train",))
            val_recs = load_coco_labels(data, images, names, ("val",), need_labels=False, multi_label=multi)[0]
            if val_recs is train or {r["id"] for r in val_recs} == {r["id"] for r in train}:
                val_recs = []
    if not val_recs:
        raise EngineError("no_validation_set", "give --val, mark images with split 'val', or put at least 2 images "
                          "in each class folder")
    return train, val_recs, names, cat_ids, multi


def _any_folder_or_coco(path, images, names, multi=False):
    if os.path.isdir(path):
        return [r for recs in load_folder(path, names, need_labels=False)[0].values() for r in recs]
    return load_coco_labels(path, images, names, need_labels=False, multi_label=multi)[0]


class ClassifyTrainer(BaseTrainer):
    loss_names = ("cls",)
    bn_recalibration = 10

    def __init__(self, cfg, data, val, images, out_dir, **kw):
        super().__init__(cfg, out_dir, **kw)
        self.task = "classify"
        self.data, self.val_path, self.images = data, val, images
        self.mix_on = True
        self.train_size = cfg.imgsz

    def build_data(self):
        cfg = self.cfg
        self.fire("phase", phase="preparing")
        train, val, names, self.cat_ids, self.multi_label = load_train_val(self.data, self.val_path, self.images)
        train = self.take_fraction(train)
        check_images(train, keep=cfg.cache)
        # folder uploads carry no sizes until decoded: keep those validation images on disk
        check_images(val, keep=all(r["width"] for r in val)
                     and sum(r["width"] * r["height"] * 3 for r in val) < RAM_BUDGET)
        self.names, self.train_records, self.val_records = names, train, val
        self.counts = class_counts(train, len(names), self.multi_label)
        self.batch = batch = self.auto_batch(len(train), cfg.imgsz)
        sampler = self.sampler(train, len(names))
        self.train_set = ClassifyTrainSet(train, cfg, self.multi_label)
        self.train_loader = torch.utils.data.DataLoader(
            self.train_set, batch_size=batch, shuffle=sampler is None, sampler=sampler, collate_fn=collate,
            drop_last=len(train) > batch, **self.loader_kw())
        step = max(1, len(val) // VAL_DURING_TRAINING)
        self.val_quick = val[::step][:VAL_DURING_TRAINING]
        kind = "multi-label" if self.multi_label else "single-label"
        log(f"{len(train)} training / {len(val)} validation images, {len(names)} classes ({kind}), batch {batch}")

    def sampler(self, train, nc):
        """`balance`: every image by its rarest class (multi-label too), whatever the skew; without it
        single-label data is balanced automatically once the largest class has twice the smallest's images."""
        if self.cfg.balance:
            labels = [r["labels"].nonzero()[0] if self.multi_label else [r["label"]] for r in train]
            return balance.balanced_sampler(labels, nc, "classify")
        return None if self.multi_label else balanced_sampler(train, nc)

    def get_model(self):
        return self.load_pretrained(Classifier(len(self.names), self.cfg.model, self.cfg.dropout, self.multi_label))

    def get_loss(self, model):
        pw = multi_label_pos_weight(self.counts, len(self.train_records)) if self.multi_label else None
        self.criterion = ClassifyLoss(self.multi_label, pw)
        return self.criterion

    def set_epoch(self, epoch):
        on = self.mosaic_on(epoch)
        if self.mix_on and not on and (self.cfg.mixup or self.cfg.cutmix):
            log(f"mixup/CutMix off for the last {self.epochs - epoch} epochs")
        self.mix_on = on

    def preprocess_batch(self, imgs, targets):
        cfg = self.cfg
        if cfg.multi_scale:
            size = max(32, int(random.uniform(cfg.imgsz * 0.5, cfg.imgsz * 1.5) // 32 * 32))
            if size != imgs.shape[-1]:
                imgs = F.interpolate(imgs, size=(size, size), mode="bilinear", align_corners=False)
        if self.mix_on and (cfg.mixup or cfg.cutmix):
            imgs, targets = mix_batch(imgs, targets, len(self.names), cfg.mixup, cfg.cutmix)
        return imgs, targets

    def validate(self, model, final=False):
        records = self.val_records if final else self.val_quick
        return evaluate(model, records, self.names, self.cfg.imgsz, self.multi_label, criterion=self.criterion)

    def fitness(self, metrics):
        # top-1 (mAP for multi-label); among equal scores the lower validation loss wins
        score = metrics.get("mAP" if self.multi_label else "top1", 0.0)
        return score - 1e-4 * min(metrics.get("val_loss") or 0.0, 10.0)

    def meta(self):
        return {"task": "classify", "names": self.names, "size": self.cfg.model, "imgsz": self.cfg.imgsz,
                "nc": len(self.names), "cat_ids": self.cat_ids, "multi_label": self.multi_label}
