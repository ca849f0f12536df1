"""Detection trainer for axis-aligned (detect) and rotated (obb) boxes."""
import random

import numpy as np
import torch
import torch.nn.functional as F

from loupe_engine.data.balance import balanced_sampler
from loupe_engine.data.coco import check_images, load_coco
from loupe_engine.data.dataset import RectTrainSet, TrainSet, collate
from loupe_engine.events import EngineError, log
from loupe_engine.losses.detect import DetectionLoss
from loupe_engine.models.detector import Detector
from loupe_engine.trainer import parallel
from loupe_engine.trainer.base import BaseTrainer
from loupe_engine.trainer.validate import evaluate, evaluate_part, summarize

VAL_DURING_TRAINING = 100  # images validated each epoch; the final evaluation uses them all
RAM_BUDGET = 4e9  # bytes of decoded validation images kept in memory


class DetectTrainer(BaseTrainer):
    # Batch-norm re-estimation of the EMA model (what classify/segment do) is OFF for detection: it helped DeepPCB's
    # first epochs (mAP50 0.015 vs 0.000 after one epoch) but on few, plain images (12 drawn 64 px images, 3 epochs)
    # near-constant channels got tiny variances and the model answered ~400 boxes scored 1.0 instead of 24 weak
    # ones, a flood of 100 % false positives for the small datasets users start with. Set > 0 to re-enable once
    # the statistics are guarded (e.g. a variance floor, or kept only when validation improves).
    bn_recalibration = 0
    # optimizer auto picks AdamW at 0.002 * 5 / (4 + classes), a fine-tuning rate; from scratch 4x that learns
    # faster (DeepPCB, 600 s side by side on one core each: mAP50 0.173 at 0.004 vs 0.124 at 0.001; 0.008 no better)
    scratch_lr_gain = 4.0
    shared_validation = True

    def __init__(self, cfg, task, data, val, images, out_dir, **kw):
        super().__init__(cfg, out_dir, **kw)
        self.task, self.rotated = task, task == "obb"
        self.data, self.val_path, self.images = data, val, images
        self.train_size = cfg.crop or cfg.imgsz

    def build_data(self):
        cfg = self.cfg
        self.fire("phase", phase="preparing")
        if self.val_path:
            train, names, self.cat_ids = load_coco(self.data, self.images, self.task)
            val, _, _ = load_coco(self.val_path, self.images, self.task, names=names, need_boxes=False)
        else:
            train, names, self.cat_ids = load_coco(self.data, self.images, self.task, split=("train",))
            val, _, _ = load_coco(self.data, self.images, self.task, names=names, split=("val",), need_boxes=False)
            if val is train or not val:
                raise EngineError("no_validation_set", "give --val or mark images with split 'val'")
        train = self.take_fraction(train)
        if cfg.single_cls:
            names = ["object"]
            for r in train + val:
                r["cls"] = np.zeros_like(r["cls"])
        check_images(train, keep=cfg.cache)
        check_images(val, keep=sum(r["width"] * r["height"] * 3 for r in val) < RAM_BUDGET)
        self.names, self.train_records, self.val_records = names, train, val
        out = cfg.crop or cfg.imgsz
        self.batch = batch = self.auto_batch(len(train), out)
        if cfg.rect:
            self.train_set = RectTrainSet(train, cfg, self.rotated, batch)
            kept = self.train_set.non_square() if cfg.transpose else 0
            if kept:
                log(f"note: rect=true: {kept} of {len(train)} images are in batches that are not square and keep "
                    "their orientation (transpose swaps width and height)")
        else:
            self.train_set = TrainSet(train, cfg, self.rotated)
        sampler = None
        if cfg.balance and cfg.rect:
            log("note: balance does not apply with rect=true (its batches follow the images' aspect ratios)")
        elif cfg.balance:
            sampler = balanced_sampler([r["cls"] for r in train], len(names), self.task)
        self.train_loader = torch.utils.data.DataLoader(
            self.train_set, batch_size=batch, shuffle=not cfg.rect and sampler is None, sampler=sampler,
            collate_fn=collate, drop_last=len(train) > batch, **self.loader_kw())
        # a fixed, spread-out subset keeps per-epoch validation cheap on CPU
        step = max(1, len(val) // VAL_DURING_TRAINING)
        self.val_quick = val[::step][:VAL_DURING_TRAINING]
        log(f"{len(train)} training / {len(val)} validation images, {len(names)} classes, batch {batch}")

    def get_model(self):
        cfg = self.cfg
        return self.load_pretrained(Detector(len(self.names), cfg.model, self.rotated, cfg.dropout))

    def get_loss(self, model):
        self.criterion = DetectionLoss(model, self.cfg)
        return self.criterion

    def set_epoch(self, epoch):
        on = self.mosaic_on(epoch)
        if self.train_set.mosaic_on and not on and self.cfg.mosaic > 0:
            log(f"closing mosaic for the last {self.epochs - epoch} epochs")
        self.train_set.mosaic_on = on

    def recalibrate(self, model):
        # from mosaic batches even while close_mosaic is on: the EMA's weights come mostly from mosaic epochs, and
        # statistics of single letterboxed images (or of unaugmented ones) suit them worse (DeepPCB, a 21-epoch run:
        # mAP50 0.52 with mosaic statistics or the EMA's own, 0.48 with those of the close-mosaic batches)
        on = self.train_set.mosaic_on
        self.train_set.mosaic_on = self.cfg.mosaic > 0
        try:
            super().recalibrate(model)
        finally:
            self.train_set.mosaic_on = on

    def preprocess_batch(self, imgs, targets):
        if not self.cfg.multi_scale:
            return imgs, targets
        base = imgs.shape[-1]
        size = max(32, int(random.uniform(base * 0.5, base * 1.5) // 32 * 32))
        if size == base:
            return imgs, targets
        f = size / base
        imgs = F.interpolate(imgs, size=(round(imgs.shape[2] * f / 32) * 32 or 32, size), mode="bilinear",
                             align_corners=False)
        targets = targets.clone()
        targets[:, 2:6] *= f  # xyxy, or cx,cy,w,h (theta untouched)
        return imgs, targets

    def validate(self, model, final=False):
        records = self.val_records if final else self.val_quick
        return evaluate(model, records, self.names, self.cfg.imgsz, self.rotated, criterion=self.criterion)

    def validate_shared(self, model):
        part = evaluate_part(model, self.val_quick[self.rank::self.world], self.names, self.cfg.imgsz, self.rotated,
                             criterion=self.criterion)
        parts = parallel.gather_to_lead(part)
        return summarize(parts, self.names) if parts else None

    def fitness(self, metrics):
        return 0.1 * metrics["mAP50"] + 0.9 * metrics["mAP50_95"]

    def meta(self):
        return {"task": self.task, "names": self.names, "size": self.cfg.model, "imgsz": self.cfg.imgsz,
                "nc": len(self.names), "cat_ids": self.cat_ids}
