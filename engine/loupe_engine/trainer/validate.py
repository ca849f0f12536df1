"""Evaluation over a letterboxed set: predictions, COCO-style metrics, validation loss and speed."""
import time

import numpy as np
import torch

from loupe_engine.data.dataset import EvalSet, collate
from loupe_engine.events import check_cancel
from loupe_engine.half import model_input
from loupe_engine.metrics import DetMetrics
from loupe_engine.models.detector import decode
from loupe_engine.nms import NMS_IOU, postprocess
from loupe_engine.tta import predict


def predict_batches(model, records, imgsz, rotated, batch=8, conf=0.001, iou=NMS_IOU, agnostic=False, max_det=300,
                    criterion=None, metrics=None, tta="off", lines=False, relabel=None):
    """Yields (record index, predictions in original-image pixels) and fills `metrics` in letterbox space.
    Sets model.ms_per_image and model.val_loss (None without `criterion`) when exhausted. `tta`: tta.py's views;
    `lines`: the boxes are text lines (nms.py); `relabel(record index, predictions)` may change their classes
    (the last column) before they are scored (OCR: classes from what is read)."""
    ds = EvalSet(records, (imgsz, imgsz), rotated)
    dl = torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=False, collate_fn=collate, num_workers=0)
    dev = next(model.parameters()).device
    loss_sum, n_loss, t_inf, n_img = torch.zeros(3), 0, 0.0, 0
    model.eval()
    with torch.no_grad():
        for imgs, targets, extra in dl:
            check_cancel()
            x = model_input(model, imgs)  # in the model's dtype: float16 after --half on CUDA (half.py)
            t0 = time.perf_counter()
            out = model(x) if criterion is not None else None
            boxes, scores = decode(out, model.stride) if out is not None and tta == "off" else predict(model, x, tta)
            preds = [postprocess(b.float(), s.float(), conf=conf, iou=iou, agnostic=agnostic, max_det=max_det,
                                 lines=lines) for b, s in zip(boxes, scores)]
            t_inf += time.perf_counter() - t0
            n_img += len(imgs)
            if criterion is not None:
                _, parts = criterion({k: (v.float() if torch.is_tensor(v) else v) for k, v in out.items()},
                                     targets.to(dev))
                loss_sum += parts.cpu()
                n_loss += 1
            for k, (i, ratio, pad) in enumerate(extra):
                t = targets[targets[:, 0] == k]
                pred = preds[k].cpu()
                orig = to_original(pred, ratio, pad, rotated)
                if relabel is not None:
                    orig = relabel(i, orig)
                    pred[:, -1] = orig[:, -1]  # the same rows: to_original() scales a copy
                if metrics is not None:
                    metrics.update(pred, t[:, 2:], t[:, 1])
                yield i, orig
    model.ms_per_image = 1000 * t_inf / max(n_img, 1)
    model.val_loss = (loss_sum / max(n_loss, 1)).tolist() if criterion is not None else None


def to_original(pred, ratio, pad, rotated):
    pred = pred.clone()
    if rotated:
        pred[:, 0] = (pred[:, 0] - pad[0]) / ratio
        pred[:, 1] = (pred[:, 1] - pad[1]) / ratio
        pred[:, 2:4] /= ratio
    else:
        pred[:, [0, 2]] = (pred[:, [0, 2]] - pad[0]) / ratio
        pred[:, [1, 3]] = (pred[:, [1, 3]] - pad[1]) / ratio
    return pred


def evaluate(model, records, names, imgsz, rotated, conf=0.25, criterion=None, batch=8, iou=NMS_IOU, agnostic=False):
    """Metrics dict for `records` (which carry ground truth)."""
    part = evaluate_part(model, records, names, imgsz, rotated, criterion, batch, iou, agnostic)
    return summarize([part], names, conf)


def evaluate_part(model, records, names, imgsz, rotated, criterion=None, batch=8, iou=NMS_IOU, agnostic=False):
    """What summarize() needs from `records`: matched predictions, loss sums and timing. Data-parallel ranks each
    evaluate a share of the images and rank 0 summarizes their parts (trainer/detect.py)."""
    m = DetMetrics(len(names), names)
    for _ in predict_batches(model, records, imgsz, rotated, batch=batch, conf=0.001, iou=iou, agnostic=agnostic,
                             criterion=criterion, metrics=m):
        pass
    return {"metrics": m, "images": len(records), "ms_per_image": model.ms_per_image, "val_loss": model.val_loss}


def summarize(parts, names, conf=0.25):
    """evaluate()'s metrics dict from one or more parts: matches pooled, timing and loss averaged per image."""
    m = DetMetrics(len(names), names)
    for p in parts:
        m.merge(p["metrics"])
    res = m.compute(conf=conf)
    n = max(sum(p["images"] for p in parts), 1)
    res["inference_ms"] = sum(p["ms_per_image"] * p["images"] for p in parts) / n
    res["fps"] = 1000.0 / max(res["inference_ms"], 1e-6)
    if parts[0]["val_loss"] is not None:
        loss = np.sum([np.asarray(p["val_loss"]) * p["images"] for p in parts], axis=0) / n
        res["val_loss"] = float(np.sum(loss))
        res["val_loss_parts"] = dict(zip(("box", "cls", "dfl"), loss.tolist()))
    return res
