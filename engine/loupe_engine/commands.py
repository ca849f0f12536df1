"""`train` and `test`: wire the CLI arguments to the trainer and the evaluator, and report."""
import json
import os
import time

import numpy as np
import torch

from loupe_engine import device
from loupe_engine import config
from loupe_engine.data.coco import check_images, load_coco
from loupe_engine.events import EngineError, Progress, emit, log
from loupe_engine.half import apply_half
from loupe_engine.losses.iou import rbox_corners
from loupe_engine.models.load import load_checkpoint
from loupe_engine.nms import NMS_IOU
from loupe_engine.tasks import runner, runner_for_checkpoint
from loupe_engine.trainer import report
from loupe_engine.trainer.detect import DetectTrainer
from loupe_engine.trainer.validate import evaluate, predict_batches
from loupe_engine.tta import check_mode


def _need(args, *keys):
    missing = [k for k in keys if not getattr(args, k, None)]
    if missing:
        raise EngineError("missing_argument", "; ".join(f"--{k} is required" for k in missing))


def train(args):
    task_runner = runner(getattr(args, "task", None))
    if task_runner:  # classify, segment
        return task_runner.train(args)
    _need(args, "task", "data", "images")
    if args.task not in ("detect", "obb"):
        raise EngineError("invalid_task", f"task {args.task!r}: this engine trains detect, obb, classify and "
                                          "segment")
    overrides = {**args.params, **config.parse_set(args.set)}
    cfg = config.validate(overrides)
    tr = DetectTrainer(cfg, args.task, args.data, args.val, args.images, args.out,
                       callbacks=report.callbacks(_epoch_line),
                       max_seconds=args.max_seconds, resume=args.resume)
    tr.train()
    emit("phase", phase="validating")
    model, _ = load_checkpoint(os.path.join(args.out, "best.pt"), tr.device)
    res = evaluate(model, tr.val_records, tr.names, cfg.imgsz, tr.rotated, criterion=tr.criterion)
    log(_metrics_text(res))
    report.finish(args, tr, model, res, {"mAP50": res["mAP50"], "mAP50_95": res["mAP50_95"],
                                         "suggested_conf": res["best_f1_conf"]})


def _epoch_line(kw):
    m = kw["metrics"]
    extra = f" mAP50 {m['mAP50']:.3f} mAP50-95 {m['mAP50_95']:.3f}" if "mAP50" in m else ""
    return f"epoch {kw['epoch']}/{kw['epochs']} loss {m['loss']:.3f}{extra} {m['img_per_s']:.1f} img/s"


def _metrics_text(res):
    lines = [f"P {res['precision']:.3f}  R {res['recall']:.3f}  F1 {res['f1']:.3f} at conf {res['conf']:.2f}  "
             f"mAP50 {res['mAP50']:.4f}  mAP50-95 {res['mAP50_95']:.4f}  "
             f"(best F1 {res['best_f1']:.3f} at conf {res['best_f1_conf']:.2f})  "
             f"{res['inference_ms']:.1f} ms/image"]
    for name, v in res["per_class"].items():
        lines.append(f"  {name:>16}  AP50 {v['AP50']:.3f}  AP50-95 {v['AP50_95']:.3f}  n={v['instances']}")
    return "\n".join(lines)


def _check_range(name, v, lo, hi):
    if v is not None and not (lo <= v <= hi):
        return [f"{name}={v}: must be between {lo} and {hi}"]
    return []


def test(args):
    task_runner = runner_for_checkpoint(args.model) if args.model else None
    if task_runner:  # classify, segment, ocr: the module's package names the task
        check_mode(args.tta, task_runner.__name__.split(".")[1])
        return task_runner.test(args)
    _need(args, "model", "data", "images")
    conf = 0.25 if args.conf is None else float(args.conf)
    iou = NMS_IOU if args.iou is None else float(args.iou)
    problems = _check_range("conf", conf, 0.0, 1.0) + _check_range("iou", iou, 0.0, 1.0)
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    dev = device.current()
    model, ck = load_checkpoint(args.model, dev)
    tta = check_mode(args.tta, ck["task"])
    dtype = apply_half(args.half, dev, model)
    rotated, names = ck["task"] == "obb", ck["names"]
    emit("phase", phase="testing")
    records, _, _ = load_coco(args.data, args.images, ck["task"], names=names, need_boxes=False)
    check_images(records, keep=False)
    has_gt = any(len(r["cls"]) for r in records)
    with open(args.data) as f:
        data_cats = {c["name"]: c["id"] for c in json.load(f).get("categories") or []}
    cat_of = [data_cats.get(n, ck.get("cat_ids", {}).get(i, i + 1)) for i, n in enumerate(names)]
    from loupe_engine.metrics import DetMetrics
    metrics = DetMetrics(len(names), names) if has_gt else None
    results = []
    t0 = time.time()
    progress = Progress("testing", len(records))
    for n, (i, pred) in enumerate(predict_batches(model, records, ck["imgsz"], rotated, conf=0.001, iou=iou,
                                                  agnostic=bool(args.agnostic), metrics=metrics, tta=tta), 1):
        progress.step(n)
        # Strictly above, like the exported graph's postprocess (nms.py): the SDK and the platform keep the same
        # boxes, and conf=1 keeps none even where a saturated score reads exactly 1.0.
        pred = pred[pred[:, -2] > conf]
        results.extend(_coco_results(records[i]["id"], pred, cat_of, rotated))
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f)
    emit("artifact", kind="predictions", path=args.out)
    summary = {"images": len(records), "detections": len(results), "conf": conf, "iou": iou, "tta": tta,
               "dtype": dtype, "inference_ms": model.ms_per_image, "fps": 1000 / max(model.ms_per_image, 1e-6),
               "wall_s": round(time.time() - t0, 2)}
    if metrics is not None:
        res = metrics.compute(conf=conf)
        res.update(inference_ms=model.ms_per_image, fps=summary["fps"])
        mpath = os.path.splitext(args.out)[0] + ".metrics.json"
        with open(mpath, "w") as f:
            json.dump(res, f, indent=1)
        emit("artifact", kind="metrics", path=mpath)
        log(_metrics_text(res))
        summary.update({k: res[k] for k in ("precision", "recall", "f1", "mAP50", "mAP50_95", "best_f1_conf",
                                            "per_class", "confusion_matrix")})
        summary["suggested_conf"] = res["best_f1_conf"]
    emit("done", summary=summary)


def _coco_results(image_id, pred, cat_of, rotated):
    out = []
    if not len(pred):
        return out
    if rotated:
        poly = rbox_corners(pred[:, :5]).numpy()
    for k, p in enumerate(pred.tolist()):
        r = {"image_id": image_id, "category_id": cat_of[int(p[-1])], "score": round(p[-2], 5)}
        if rotated:
            pts = poly[k]
            x0, y0 = pts.min(0)
            x1, y1 = pts.max(0)
            r["bbox"] = [round(float(v), 2) for v in (x0, y0, x1 - x0, y1 - y0)]
            r["rbox"] = [round(v, 2) for v in p[:4]] + [round(float(np.rad2deg(p[4])), 2)]
            r["segmentation"] = [[round(float(v), 2) for v in pts.reshape(-1)]]
        else:
            r["bbox"] = [round(v, 2) for v in (p[0], p[1], p[2] - p[0], p[3] - p[1])]
        out.append(r)
    return out
