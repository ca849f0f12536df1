"""Segmentation inference over letterboxed images (the pre-processing of every task's evaluation, export and
packages/runtime), metrics and validation loss."""
import time

import numpy as np
import torch

from loupe_engine.events import check_cancel
from loupe_engine.half import model_input
from loupe_engine.segment.data import SegEvalSet, collate
from loupe_engine.segment.metrics import SegMetrics
from loupe_engine.tta import pixel_probs


def content(ratio, pad, record):
    """(top, left, h, w) of the image inside the letterboxed input."""
    return pad[1], pad[0], int(round(record["height"] * ratio)), int(round(record["width"] * ratio))


def predict(model, records, imgsz, batch=8, criterion=None, tta="off"):
    """Yields (record index, probabilities (C, h, w) and label map of the image area at model resolution,
    ratio, pad), averaged over the views of `tta` (tta.py); sets model.ms_per_image and model.val_loss."""
    ds = SegEvalSet(records, (imgsz, imgsz), model.nc, model.overlap)
    dl = torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=False, collate_fn=collate, num_workers=0)
    dev = next(model.parameters()).device
    t_inf, n_img, loss_sum, n_loss = 0.0, 0, None, 0
    model.eval()
    with torch.no_grad():
        for imgs, targets, extra in dl:
            check_cancel()
            x = model_input(model, imgs)  # in the model's dtype: float16 after --half on CUDA (half.py)
            t0 = time.perf_counter()
            if tta == "off":
                logits = model(x).float()
                probs = model.probs(logits)
            else:  # the views' averaged probabilities: no one view's logits to score the loss on
                logits, probs = None, pixel_probs(model, x, tta)
            t_inf += time.perf_counter() - t0
            n_img += len(imgs)
            if criterion is not None and logits is not None:
                parts = criterion(logits, targets.to(dev))[1].cpu() * len(imgs)
                loss_sum = parts if loss_sum is None else loss_sum + parts
                n_loss += len(imgs)
            for k, (i, ratio, pad) in enumerate(extra):
                top, left, h, w = content(ratio, pad, records[i])
                yield (i, probs[k, :, top:top + h, left:left + w], targets[k, ..., top:top + h, left:left + w],
                       ratio, pad)
    model.ms_per_image = 1000 * t_inf / max(n_img, 1)
    model.val_loss = (loss_sum / n_loss).tolist() if n_loss else None


def evaluate(model, records, names, imgsz, criterion=None, conf=0.5, batch=8):
    m = SegMetrics(names, model.overlap, conf)
    for _, probs, target, _, _ in predict(model, records, imgsz, batch, criterion):
        m.update(probs, target.to(probs.device))
    res = m.compute()
    res["inference_ms"] = model.ms_per_image
    res["fps"] = 1000.0 / max(model.ms_per_image, 1e-6)
    if model.val_loss is not None:
        res["val_loss"] = float(np.sum(model.val_loss))
        res["val_loss_parts"] = dict(zip(("ce", "dice"), model.val_loss))
    return res
