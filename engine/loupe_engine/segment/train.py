"""Segmentation trainer: the shared BaseTrainer loop with polygon data, the encoder-decoder, CE + Dice loss and
mIoU validation."""
import random

import numpy as np
import torch
import torch.nn.functional as F

from loupe_engine.data.coco import check_images
from loupe_engine.events import EngineError, log
from loupe_engine.models.segmenter import Segmenter
from loupe_engine.segment.data import SegmentTrainSet, auto_size, collate, load_polygons
from loupe_engine.segment.loss import SegmentLoss
from loupe_engine.segment.val import evaluate
from loupe_engine.trainer.base import BaseTrainer

VAL_DURING_TRAINING = 100  # images validated each epoch; the final evaluation uses them all
CENTRED = 0.5  # share of training windows (mosaic windows, tiles) centred on a labelled pixel
UNEVEN = 1.5  # sampling weights this uneven (largest / smallest) draw images by weight, else each once an epoch
RAM_BUDGET = 2e9  # bytes of decoded validation images kept in memory


class SegmentTrainer(BaseTrainer):
    loss_names = ("ce", "dice")
    bn_recalibration = 10

    def __init__(self, cfg, data, val, images, out_dir, size_set=True, **kw):
        super().__init__(cfg, out_dir, **kw)
        self.task, self.overlap = "segment", cfg.overlap_mask
        self.data, self.val_path, self.images = data, val, images
        self.size_set = size_set  # False: imgsz (and crop, unless set) follow the data (data.auto_size)
        self.train_size = cfg.crop or cfg.imgsz

    def build_data(self):
        cfg = self.cfg
        self.fire("phase", phase="preparing")
        if self.val_path:
            train, names, self.cat_ids = load_polygons(self.data, self.images)
            val, _, _ = load_polygons(self.val_path, self.images, names, need_labels=False)
        else:
            train, names, self.cat_ids = load_polygons(self.data, self.images, split=("train",))
            val, _, _ = load_polygons(self.data, self.images, names, ("val",), need_labels=False)
            if {r["id"] for r in val} == {r["id"] for r in train}:
                raise EngineError("no_validation_set", "give --val or mark images with split 'val'")
        train = self.take_fraction(train)
        if cfg.single_cls:
            names, self.cat_ids = ["object"], {0: 1}
            for r in train + val:
                r["cls"] = np.zeros_like(r["cls"])
        if not self.size_set:
            imgsz, crop = auto_size(train, cfg.imgsz)
            cfg.crop = cfg.crop if cfg.crop and cfg.crop < imgsz else crop
            cfg.imgsz, self.train_size = imgsz, cfg.crop or imgsz
            log(f"imgsz auto -> {imgsz} from the training images' sizes and their labelled shapes"
                + (f", training on full-resolution tiles of {cfg.crop}" if cfg.crop else ""))
        check_images(train, keep=cfg.cache)
        check_images(val, keep=sum(r["width"] * r["height"] * 3 for r in val) < RAM_BUDGET)
        self.names, self.train_records, self.val_records = names, train, val
        self.batch = batch = self.auto_batch(len(train), self.train_size)
        self.train_set = SegmentTrainSet(train, cfg, len(names), self.overlap, CENTRED)
        # an epoch is as many draws as there are images, defective images and rare classes drawn more often; where
        # the weights are nearly even, every image once per epoch (drawing with replacement skips a third of them)
        w = self.train_set.weights
        # (balance=true: by weight whatever the spread)
        sampler = (torch.utils.data.WeightedRandomSampler(w, len(train)) if cfg.balance or max(w) >= UNEVEN * min(w)
                   else torch.utils.data.RandomSampler(train))
        self.train_loader = torch.utils.data.DataLoader(
            self.train_set, batch_size=batch, sampler=sampler, collate_fn=collate,
            drop_last=len(train) > batch, **self.loader_kw())
        # evenly spread over the whole set: the first 100 of 180 names sorted by class left one class out, and the
        # epoch's mIoU (which picks best.pt) then scored that class 0 whenever the model predicted it anywhere
        n = min(len(val), VAL_DURING_TRAINING)
        self.val_quick = [val[k * len(val) // n] for k in range(n)]
        n_poly = sum(len(r["cls"]) for r in train)
        free = sum(not len(r["cls"]) for r in train)
        log(f"{len(train)} training / {len(val)} validation images ({free} without a polygon), {n_poly} polygons, "
            f"{len(names)} classes, overlap_mask={self.overlap}, batch {batch}")

    def get_model(self):
        return self.load_pretrained(Segmenter(len(self.names), self.cfg.model, self.cfg.dropout, self.overlap))

    def get_loss(self, model):
        self.criterion = SegmentLoss(self.overlap)
        return self.criterion

    def set_epoch(self, epoch):
        on = self.mosaic_on(epoch)
        if self.train_set.mosaic_on and not on and (self.cfg.mosaic or self.cfg.cutmix):
            log(f"closing mosaic/CutMix for the last {self.epochs - epoch} epochs")
        self.train_set.mosaic_on = on

    def preprocess_batch(self, imgs, targets):
        if not self.cfg.multi_scale:
            return imgs, targets
        base = imgs.shape[-1]
        size = max(32, int(random.uniform(base * 0.5, base * 1.5) // 32 * 32))
        if size == base:
            return imgs, targets
        imgs = F.interpolate(imgs, size=(size, size), mode="bilinear", align_corners=False)
        t = targets.unsqueeze(1) if targets.dim() == 3 else targets
        t = F.interpolate(t.float(), size=(size, size), mode="nearest").to(targets.dtype)
        return imgs, (t[:, 0] if targets.dim() == 3 else t)

    def validate(self, model, final=False):
        records = self.val_records if final else self.val_quick
        return evaluate(model, records, self.names, self.cfg.imgsz, criterion=self.criterion)

    def fitness(self, metrics):
        # mIoU; among equal scores (e.g. all 0 in the first epochs) the lower validation loss wins
        return metrics["mIoU"] - 1e-4 * min(metrics.get("val_loss") or 0.0, 10.0)

    def meta(self):
        return {"task": "segment", "names": self.names, "size": self.cfg.model, "imgsz": self.cfg.imgsz,
                "nc": len(self.names), "cat_ids": self.cat_ids, "overlap_mask": self.overlap}
