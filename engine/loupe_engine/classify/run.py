"""`train`, `test` and `export` for classification (called by commands.py and export.py for task classify)."""
import json
import os
import time

import torch

from loupe_engine import device
from loupe_engine import config
from loupe_engine.classify.data import load_coco_labels, load_folder
from loupe_engine.classify.train import ClassifyTrainer
from loupe_engine.classify.val import evaluate, predict, truth_of
from loupe_engine.classify.metrics import ClassifyMetrics
from loupe_engine.data.coco import check_images
from loupe_engine.events import EngineError, Progress, emit, log
from loupe_engine.half import apply_half
from loupe_engine.models.load import load_checkpoint
from loupe_engine.tasks import apply_task_rules
from loupe_engine.trainer import report
from loupe_engine import onnx_io
from loupe_engine.tta import anti_identity, check_mode, class_probs


def _line(kw):
    m = kw["metrics"]
    score = f" top1 {m['top1']:.3f}" if "top1" in m else (f" mAP {m['mAP']:.3f}" if "mAP" in m else "")
    return f"epoch {kw['epoch']}/{kw['epochs']} loss {m['loss']:.4f}{score} {m['img_per_s']:.1f} img/s"


def metrics_text(res):
    head = (f"top-1 {res['top1']:.3f}" + (f"  top-5 {res['top5']:.3f}" if "top5" in res else "")
            if "top1" in res else f"exact match {res['accuracy']:.3f}  mAP {res['mAP']:.3f} at conf {res['conf']:.2f}")
    lines = [f"{head}  P {res['precision']:.3f}  R {res['recall']:.3f}  F1 {res['f1']:.3f}  "
             f"{res['inference_ms']:.1f} ms/image"]
    for name, v in res["per_class"].items():
        lines.append(f"  {name:>16}  P {v['precision']:.3f}  R {v['recall']:.3f}  n={v['images']}")
    return "\n".join(lines)


def train(args):
    if not args.data:
        raise EngineError("missing_argument", "--data is required")
    overrides = {**args.params, **config.parse_set(args.set)}
    cfg = apply_task_rules("classify", config.validate(overrides), overrides)
    tr = ClassifyTrainer(cfg, args.data, args.val, args.images, args.out, callbacks=report.callbacks(_line),
                         max_seconds=args.max_seconds, resume=args.resume)
    tr.train()
    emit("phase", phase="validating")
    model, _ = load_checkpoint(os.path.join(args.out, "best.pt"), tr.device)
    res = evaluate(model, tr.val_records, tr.names, cfg.imgsz, tr.multi_label, criterion=tr.criterion)
    log(metrics_text(res))
    keys = ("accuracy", "mAP", "micro_f1") if tr.multi_label else ("top1", "top5", "accuracy")
    report.finish(args, tr, model, res, {k: res[k] for k in keys if k in res} | {"multi_label": tr.multi_label})


def _test_records(args, ck):
    names, multi = ck["names"], ck.get("multi_label", False)
    if os.path.isdir(args.data):
        splits, _ = load_folder(args.data, names, need_labels=False)
        return [r for recs in splits.values() for r in recs]
    if not args.images:
        raise EngineError("missing_argument", "--images is required with a COCO file")
    return load_coco_labels(args.data, args.images, names, need_labels=False, multi_label=multi)[0]


def test(args):
    """Per image: the class (single-label: the top class and its probability) or the classes whose probability
    reaches --conf (multi-label, default 0.5), and every class's probability. With ground truth: metrics."""
    if not args.data:
        raise EngineError("missing_argument", "--data is required")
    dev = device.current()
    model, ck = load_checkpoint(args.model, dev)
    multi, names = ck.get("multi_label", False), ck["names"]
    conf = 0.5 if args.conf is None else float(args.conf)
    if not 0 <= conf <= 1:
        raise EngineError("invalid_parameters", f"conf={conf}: must be between 0 and 1")
    tta = check_mode(args.tta, "classify")
    dtype = apply_half(args.half, dev, model)
    emit("phase", phase="testing")
    records = _test_records(args, ck)
    check_images(records, keep=False)
    cat_ids = ck.get("cat_ids") or {}
    metrics = ClassifyMetrics(names, multi)
    results, t0 = [], time.time()
    progress = Progress("testing", len(records))
    for n, (i, p) in enumerate(predict(model, records, ck["imgsz"], multi_label=multi,
                                           tta=tta), 1):
        progress.step(n)
        r = records[i]
        out = {"image_id": r["id"], "file_name": r["file"],
               "scores": {n: round(float(v), 5) for n, v in zip(names, p)}}
        if multi:
            chosen = [c for c in range(len(names)) if p[c] >= conf]
            out.update(category_ids=[cat_ids.get(c, c + 1) for c in chosen], labels=[names[c] for c in chosen])
        else:
            c = int(p.argmax())
            out.update(category_id=cat_ids.get(c, c + 1), label=names[c], score=round(float(p[c]), 5))
        results.append(out)
        t = truth_of(r, multi)
        if t is not None:
            metrics.update(p, t)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f)
    emit("artifact", kind="predictions", path=args.out)
    summary = {"images": len(records), "conf": conf, "multi_label": multi, "tta": tta, "dtype": dtype,
               "inference_ms": model.ms_per_image, "fps": 1000 / max(model.ms_per_image, 1e-6),
               "wall_s": round(time.time() - t0, 2)}
    if metrics.probs:
        res = metrics.compute(conf)
        res.update(inference_ms=model.ms_per_image, fps=summary["fps"])
        mpath = os.path.splitext(args.out)[0] + ".metrics.json"
        with open(mpath, "w") as f:
            json.dump(res, f, indent=1)
        emit("artifact", kind="metrics", path=mpath)
        log(metrics_text(res))
        summary.update({k: v for k, v in res.items() if k not in ("inference_ms", "fps")})
    emit("done", summary=summary)


class Exported(torch.nn.Module):
    """Probabilities inside the graph: softmax over classes, or one sigmoid per class (multi-label), averaged over
    the test-time views (flips OpenCV can load, tta.py)."""

    def __init__(self, model, size, tta="off"):
        super().__init__()
        self.model, self.tta = model, tta
        self.register_buffer("anti", anti_identity(size))

    def forward(self, images):
        return class_probs(self.model, images, self.tta, (self.anti, self.anti))


def export(args):
    """Input: the letterboxed imgsz x imgsz square the model was validated on (a camera --width/--height is
    recorded, it does not change the input). Output `probs` [1, nc]."""
    conf = onnx_io.check_args(args, "classify")
    tta = check_mode(args.tta, "classify")
    model, ck = load_checkpoint(args.model, "cpu")
    s, multi = ck["imgsz"], ck.get("multi_label", False)
    meta = {"labels": ck["names"], "task": "classify", "imgsz": s, "multi_label": multi, "conf": conf, "tta": tta,
            "camera_width": args.width, "camera_height": args.height, "model_size": ck["size"],
            "output": "probs [1, nc]: " + ("sigmoid per class; a class is present at >= conf" if multi
                                           else "softmax over classes")}
    onnx_io.write(Exported(model, s, tta), s, s, args.out, ["probs"], meta)
