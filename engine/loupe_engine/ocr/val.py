"""OCR evaluation: the detector's metrics (as for obb), the recognizer read on the labelled boxes (`rec_*`), and
end to end (`char_acc`, `line_acc`, `ned`): each labelled text box is matched to the highest-scored unmatched
prediction (score above conf) overlapping it by rotated IoU (ProbIoU, as the detection metrics) >= 0.5, and its
text compared with what was read there; a missed box is read as '' (wholly wrong). Predictions without a match
count in the detection metrics only."""
import math
import time

import numpy as np
import torch

from loupe_engine.events import check_cancel
from loupe_engine.half import model_dtype
from loupe_engine.losses.iou import rbox_iou_matrix
from loupe_engine.metrics import DetMetrics
from loupe_engine.nms import NMS_IOU
from loupe_engine.ocr.crop import canonical, rectify
from loupe_engine.ocr.data import read_rgb
from loupe_engine.ocr.formats import relabel
from loupe_engine.ocr.text import TextMetrics, encode, greedy_decode
from loupe_engine.trainer.validate import predict_batches

MATCH_IOU = 0.5


def pred_box(p):
    """Detector output row (cx, cy, w, h, theta rad, ...) -> canonical box in degrees."""
    return canonical(p[0], p[1], p[2], p[3], math.degrees(p[4]))


def recognize(rec, crops, charset, batch=64):
    """crops: list of float32 (3, 32, W) -> list of (text, score), plus the per-step probabilities."""
    out = []
    dev = next(rec.parameters()).device
    rec.eval()
    with torch.no_grad():
        for k in range(0, len(crops), batch):
            # in the recognizer's dtype: float16 after --half on CUDA, like the detector's input (half.py)
            x = torch.from_numpy(np.stack(crops[k:k + batch])).to(dev, model_dtype(rec))
            probs = rec(x).float().softmax(2).cpu().numpy()
            out += [greedy_decode(p, charset) for p in probs]
    return out


def _rec_loss(rec, crops, texts, charset, criterion):
    index = {c: k + 1 for k, c in enumerate(charset)}
    dev = next(rec.parameters()).device
    total, n = 0.0, 0
    with torch.no_grad():
        for k in range(0, len(crops), 64):
            x = torch.from_numpy(np.stack(crops[k:k + 64])).to(dev)
            enc = [encode(t, index) for t in texts[k:k + 64]]
            logp = rec(x).log_softmax(2).transpose(0, 1)
            loss = criterion(logp, torch.tensor([c for e in enc for c in e], dtype=torch.long),
                             torch.full((len(x),), logp.shape[0], dtype=torch.long),
                             torch.tensor([len(e) for e in enc], dtype=torch.long))
            total += float(loss) * len(x)
            n += len(x)
    return total / max(n, 1)


def match(preds, truths):
    """preds: (K, 7) rows sorted by score; truths: list of (cx, cy, w, h, angle_deg). Returns, per truth, the
    index of its prediction or -1."""
    out = [-1] * len(truths)
    if not len(preds) or not truths:
        return out
    gt = torch.tensor([[b[0], b[1], b[2], b[3], math.radians(b[4])] for b in truths], dtype=torch.float32)
    iou = rbox_iou_matrix(torch.as_tensor(preds[:, :5], dtype=torch.float32), gt).numpy()
    for k in np.argsort(-preds[:, 5], kind="stable"):
        cand = [(iou[k, j], j) for j in range(len(truths)) if out[j] < 0 and iou[k, j] >= MATCH_IOU]
        if cand:
            out[max(cand)[1]] = int(k)
    return out


def predict(det, rec, records, charset, width, imgsz, conf=0.25, iou=NMS_IOU, metrics=None, criterion=None,
            agnostic=False, text_formats=None):
    """Yields (record index, image RGB, predictions (K, 7) above conf in image pixels, [(text, score)]). With
    `text_formats` (formats.py, per class) a line read takes the class its text fits, before it is scored."""
    done = {}

    def read(i, pred):
        check_cancel()
        keep = pred[:, 5] > conf
        above = pred[keep].float().numpy()
        img = read_rgb(records[i])
        t0 = time.perf_counter()
        reads = recognize(rec, [rectify(img, pred_box(p), width) for p in above], charset) if len(above) else []
        if text_formats:  # `pred` is predict_batches' own copy in image pixels: change it in place
            above[:, 6] = [relabel(t, int(c), text_formats) for (t, _), c in zip(reads, above[:, 6])]
            pred[keep, 6] = torch.from_numpy(above[:, 6]).to(pred.dtype)
        rec.ms = getattr(rec, "ms", 0.0) + 1000 * (time.perf_counter() - t0)
        done[i] = img, above, reads
        return pred

    for i, _ in predict_batches(det, records, imgsz, True, conf=0.001, iou=iou, metrics=metrics,
                                criterion=criterion, agnostic=agnostic, lines=True, relabel=read):
        yield (i, *done.pop(i))


def evaluate(det, rec, records, texts, names, charset, width, imgsz, conf=0.25, iou=NMS_IOU, criterion=None,
             rec_criterion=None, on_image=None, agnostic=False, text_formats=None):
    """Metrics dict: detection (DetMetrics at conf), end to end, recognition on the labelled boxes. `on_image`
    receives (record, predictions, reads) for each image (the test command writes them out). `text_formats`:
    as predict()."""
    m = DetMetrics(len(names), names)
    e2e, on_gt = TextMetrics(), TextMetrics()
    gt_crops, gt_texts = [], []
    rec.ms = 0.0
    for i, img, pred, reads in predict(det, rec, records, charset, width, imgsz, conf, iou, m, criterion, agnostic,
                                       text_formats):
        r = records[i]
        lines = texts.get(r["id"], [])
        if on_image:
            on_image(r, pred, reads)
        found = match(pred, [b for _, b, _ in lines])
        for (_, b, t), k in zip(lines, found):
            if t is None:
                continue
            e2e.update(reads[k][0] if k >= 0 else "", t)
            gt_crops.append(rectify(img, b, width))
            gt_texts.append(t)
    res = m.compute(conf=conf)
    res["inference_ms"] = det.ms_per_image
    res["fps"] = 1000.0 / max(det.ms_per_image, 1e-6)
    res["rec_ms_per_image"] = rec.ms / max(len(records), 1)
    if det.val_loss is not None:
        res["val_loss"] = float(np.sum(det.val_loss))
        res["val_loss_parts"] = dict(zip(("box", "cls", "dfl"), det.val_loss))
    res.update(e2e.compute())
    for (p, _), t in zip(recognize(rec, gt_crops, charset), gt_texts):
        on_gt.update(p, t)
    res.update(on_gt.compute("rec_"))
    if rec_criterion is not None and gt_crops:
        res["rec_val_loss"] = _rec_loss(rec, gt_crops, gt_texts, charset, rec_criterion)
    return res
