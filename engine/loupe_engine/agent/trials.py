"""One short training of the tuner, in this process, by the task's own trainer (its data loading, loop, fitness
and time budget); only the regime differs from a full training: a share of the training images, a few epochs,
a time limit, and validation on the whole validation set every epoch."""
import gc
import json
import os
import shutil
import time
from dataclasses import dataclass

import torch

from loupe_engine import config
from loupe_engine.tasks import apply_task_rules

IMAGES_PER_TRIAL = 150  # training images a trial needs to rank configurations (at least 30 % of the set)
MIN_FRACTION = 0.3
MAX_EPOCHS = 10
MIN_EPOCHS = 2  # successive halving's first rung is epoch 1: a trial needs a second epoch to be pruned before


@dataclass
class Regime:
    fraction: float  # share of the training images
    slot_s: float  # the time one run should take
    epochs: int = 0  # 0 until the base trial's first epoch is measured (calibrate)
    limit_s: float = 0.0  # each run's training time limit (the trainer's own budget)

    def calibrate(self, ends):
        """Epochs from the base trial's first epochs (`ends`: seconds from the run's start to the end of each):
        as many as fit the slot, MIN_EPOCHS to MAX_EPOCHS; the limit leaves a quarter's margin over that. After
        one epoch its whole time counts per epoch; after two the second's time is the pace and the first's excess
        (data loading, model building, CUDA's first kernels: 7 of a first epoch's 9 s on an H100, a second took 1)
        is paid once. Only ever raised, so a run already planned is never cut short."""
        per = ends[-1] - ends[-2] if len(ends) > 1 else ends[0]
        once = max(0.0, ends[0] - per)
        fit = int((self.slot_s - once) // max(per, 1e-6))
        self.epochs = min(MAX_EPOCHS, max(MIN_EPOCHS, fit, self.epochs))
        self.limit_s = 1.25 * max(self.slot_s, once + self.epochs * per)


def trial_fraction(n_train):
    return max(MIN_FRACTION, min(1.0, IMAGES_PER_TRIAL / max(n_train, 1)))


def count_train(data, val):
    """Training images in the manifest, as the trainers split it: a COCO file's images with split 'train' (all of
    them with a separate --val, or when none is tagged); a classification folder's image files; 0 when the file
    cannot be read."""
    if os.path.isdir(data):
        return sum(len(files) for _, _, files in os.walk(data))
    try:
        with open(data) as f:
            images = json.load(f).get("images") or []
    except (OSError, ValueError, AttributeError):
        return 0  # the base trial's trainer names the problem (dataset_missing, dataset_invalid)
    tagged = [im for im in images if "split" in im]
    if val or not tagged:
        return len(images)
    return sum(im.get("split") == "train" for im in tagged)


def _trainer(task, cfg, overrides, args, out, callbacks, limit_s):
    kw = {"callbacks": callbacks, "max_seconds": limit_s}
    if task in ("detect", "obb"):
        from loupe_engine.trainer.detect import DetectTrainer
        return DetectTrainer(cfg, task, args.data, args.val, args.images, out, **kw)
    cfg = apply_task_rules(task, cfg, overrides)
    if task == "classify":
        from loupe_engine.classify.train import ClassifyTrainer
        return ClassifyTrainer(cfg, args.data, args.val, args.images, out, **kw)
    if task == "segment":
        from loupe_engine.segment.train import SegmentTrainer
        return SegmentTrainer(cfg, args.data, args.val, args.images, out, size_set="imgsz" in overrides, **kw)
    from loupe_engine.ocr.train import OcrTrainer
    return OcrTrainer(cfg, args.data, args.val, args.images, out, **kw)


def train_run(args, overrides, regime, seed, out, on_epoch=None):
    """Train `overrides` under `regime`; returns {score (best epoch fitness, None before the first), epochs}.
    The first run (regime not calibrated) plans MIN_EPOCHS, measures its first epochs and then follows the
    calibrated plan. `on_epoch(epoch, fitness)` may raise (pruning) to stop the run. The run's folder is removed
    afterwards: only its score is kept."""
    calibrating = not regime.epochs
    epochs = MIN_EPOCHS if calibrating else regime.epochs
    fraction = max(0.01, round(float(overrides.get("fraction", 1.0)) * regime.fraction, 4))
    base = config.validate(overrides)
    # mosaic closes for the same share of the run as in the full training (10 of 100 epochs: none of 3)
    close = round(epochs * base.close_mosaic / max(base.epochs, 1))
    ov = {**overrides, "epochs": epochs, "fraction": fraction, "seed": seed, "val": True, "close_mosaic": close}
    cfg = config.validate(ov)
    scores, ends, t0 = [], [], time.time()

    def epoch(**kw):
        if calibrating and kw["epoch"] <= MIN_EPOCHS:
            ends.append(time.time() - t0)
            regime.calibrate(ends)
            tr.epochs = tr.cfg.epochs = regime.epochs
            tr.budget = regime.limit_s
        fit = tr.fitness(kw["metrics"])
        scores.append(fit)
        if on_epoch:
            on_epoch(kw["epoch"], fit)

    tr = _trainer(args.task, cfg, ov, args, out, {"epoch": epoch}, None if calibrating else regime.limit_s)
    build = tr.build_data

    def build_full_val():
        build()
        tr.val_quick = tr.val_records  # trials are ranked on the whole validation set, every epoch

    tr.build_data = build_full_val
    try:
        tr.train()
    finally:
        del tr
        shutil.rmtree(out, ignore_errors=True)
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return {"score": max(scores) if scores else None, "epochs": len(scores)}
