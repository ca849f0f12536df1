"""Classification inference over letterboxed images (the pre-processing of detection, export and
packages/runtime), metrics and validation loss."""
import time

import numpy as np
import torch

from loupe_engine.classify.metrics import ClassifyMetrics
from loupe_engine.data.dataset import EvalSet, collate
from loupe_engine.events import check_cancel
from loupe_engine.half import model_input
from loupe_engine.tta import class_probs


def truth_of(record, multi_label):
    """Ground truth of a record, or None when it has none."""
    if multi_label:
        return record.get("labels")
    return record["label"] if record["label"] >= 0 else None


def predict(model, records, imgsz, batch=16, criterion=None, multi_label=False, tta="off"):
    """Yields (record index, probabilities (nc,)), averaged over the views of `tta` (tta.py); sets
    model.ms_per_image and model.val_loss (None with views)."""
    dl = torch.utils.data.DataLoader(EvalSet(records, (imgsz, imgsz), False), batch_size=batch, shuffle=False,
                                     collate_fn=collate, num_workers=0)
    dev = next(model.parameters()).device
    t_inf, n_img, loss_sum, n_loss = 0.0, 0, 0.0, 0
    model.eval()
    with torch.no_grad():
        for imgs, _, extra in dl:
            check_cancel()
            x = model_input(model, imgs)  # in the model's dtype: float16 after --half on CUDA (half.py)
            t0 = time.perf_counter()
            logits = model(x).float() if tta == "off" else None
            probs = model.probs(logits) if logits is not None else class_probs(model, x, tta)
            t_inf += time.perf_counter() - t0
            n_img += len(imgs)
            idx = [e[0] for e in extra]
            truth = [truth_of(records[i], multi_label) for i in idx]
            if criterion is not None and logits is not None and all(t is not None for t in truth):
                t = torch.as_tensor(np.stack(truth) if multi_label else np.array(truth), device=dev)
                loss_sum += float(criterion(logits, t)[1].sum()) * len(idx)
                n_loss += len(idx)
            for k, i in enumerate(idx):
                yield i, probs[k].cpu().numpy()
    model.ms_per_image = 1000 * t_inf / max(n_img, 1)
    model.val_loss = loss_sum / n_loss if n_loss else None


def evaluate(model, records, names, imgsz, multi_label, conf=0.5, criterion=None, batch=16):
    m = ClassifyMetrics(names, multi_label)
    for i, p in predict(model, records, imgsz, batch, criterion, multi_label):
        t = truth_of(records[i], multi_label)
        if t is not None:
            m.update(p, t)
    res = m.compute(conf)
    res["inference_ms"] = model.ms_per_image
    res["fps"] = 1000.0 / max(model.ms_per_image, 1e-6)
    if model.val_loss is not None:
        res["val_loss"] = model.val_loss
    return res
