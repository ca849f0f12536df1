"""`train`, `test` and `export` for segmentation (called by commands.py and export.py for task segment)."""
import json
import os
import time

import torch

from loupe_engine import device
from loupe_engine import config, onnx_io
from loupe_engine.data.coco import check_images
from loupe_engine.events import EngineError, Progress, emit, log
from loupe_engine.half import apply_half
from loupe_engine.export import input_size
from loupe_engine.models.load import load_checkpoint
from loupe_engine.segment import instances as inst
from loupe_engine.segment.data import load_polygons
from loupe_engine.segment.metrics import SegMetrics
from loupe_engine.segment.train import SegmentTrainer
from loupe_engine.segment.val import evaluate, predict
from loupe_engine.tasks import apply_task_rules
from loupe_engine.tta import anti_identity, check_mode, graph_mode, pixel_probs
from loupe_engine.trainer import report


def _line(kw):
    m = kw["metrics"]
    extra = f" mIoU {m['mIoU']:.3f} dice {m['dice']:.3f}" if "mIoU" in m else ""
    return f"epoch {kw['epoch']}/{kw['epochs']} loss {m['loss']:.4f}{extra} {m['img_per_s']:.1f} img/s"


def metrics_text(res):
    lines = [f"mIoU {res['mIoU']:.4f}  dice {res['dice']:.4f}  pixel accuracy {res['pixel_accuracy']:.4f}  "
             f"P {res['precision']:.3f}  R {res['recall']:.3f}  background IoU {res['background_iou']:.3f}  "
             f"{res['inference_ms']:.1f} ms/image"]
    for name, v in res["per_class"].items():
        lines.append(f"  {name:>16}  IoU {v['IoU']:.3f}  dice {v['dice']:.3f}  pixels={v['pixels']}")
    return "\n".join(lines)


def train(args):
    missing = [f"--{k} is required" for k in ("data", "images") if not getattr(args, k, None)]
    if missing:
        raise EngineError("missing_argument", "; ".join(missing))
    overrides = {**args.params, **config.parse_set(args.set)}
    cfg = apply_task_rules("segment", config.validate(overrides), overrides)
    tr = SegmentTrainer(cfg, args.data, args.val, args.images, args.out, callbacks=report.callbacks(_line),
                        max_seconds=args.max_seconds, resume=args.resume, size_set="imgsz" in overrides)
    tr.train()
    emit("phase", phase="validating")
    model, _ = load_checkpoint(os.path.join(args.out, "best.pt"), tr.device)
    res = evaluate(model, tr.val_records, tr.names, cfg.imgsz, criterion=tr.criterion)
    log(metrics_text(res))
    report.finish(args, tr, model, res, {k: res[k] for k in ("mIoU", "dice", "pixel_accuracy")}
                  | {"overlap_mask": tr.overlap})


def test(args):
    """COCO results, one per instance: image_id, category_id, score, bbox, area (pixels), segmentation
    (polygons, or RLE with --masks rle) and measure (the measurement fields in pixels). With ground truth:
    mIoU, Dice, per-class IoU and pixel accuracy at the model's resolution. --tta averages the probabilities of
    the image's views, pixel by pixel."""
    missing = [f"--{k} is required" for k in ("data", "images") if not getattr(args, k, None)]
    if missing:
        raise EngineError("missing_argument", "; ".join(missing))
    conf = 0.5 if args.conf is None else float(args.conf)
    if not 0 <= conf <= 1:
        raise EngineError("invalid_parameters", f"conf={conf}: must be between 0 and 1")
    masks = getattr(args, "masks", None) or "polygon"
    tta = check_mode(args.tta, "segment")
    dev = device.current()
    model, ck = load_checkpoint(args.model, dev)
    dtype = apply_half(args.half, dev, model)
    emit("phase", phase="testing")
    records, _, _ = load_polygons(args.data, args.images, ck["names"], need_labels=False)
    check_images(records, keep=False)
    has_gt = any(len(r["cls"]) for r in records)
    metrics = SegMetrics(ck["names"], model.overlap, conf) if has_gt else None
    cat_ids = ck.get("cat_ids") or {}
    results, t0 = [], time.time()
    progress = Progress("testing", len(records))
    for n, (i, probs, target, ratio, _) in enumerate(predict(model, records, ck["imgsz"], tta=tta),
                                                           1):
        progress.step(n)
        r = records[i]
        if metrics is not None:
            metrics.update(probs, target.to(probs.device))
        planes = inst.upsample(probs, r["width"], r["height"])
        for o in inst.instances(planes, model.overlap, conf, min_area=max(1, round(2 / ratio ** 2))):
            out = {"image_id": r["id"], "category_id": cat_ids.get(o["cls"], o["cls"] + 1),
                   "score": round(o["score"], 5), "bbox": o["bbox"], "area": o["area"],
                   "segmentation": inst.rle(o, r["width"], r["height"]) if masks == "rle" else inst.polygons(o),
                   "measure": o["measure"]}
            results.append(out)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f)
    emit("artifact", kind="predictions", path=args.out)
    summary = {"images": len(records), "instances": len(results), "conf": conf, "masks": masks, "tta": tta,
               "dtype": dtype,
               "inference_ms": model.ms_per_image, "fps": 1000 / max(model.ms_per_image, 1e-6),
               "wall_s": round(time.time() - t0, 2)}
    if metrics is not None:
        res = metrics.compute()
        res.update(inference_ms=model.ms_per_image, fps=summary["fps"])
        mpath = os.path.splitext(args.out)[0] + ".metrics.json"
        with open(mpath, "w") as f:
            json.dump(res, f, indent=1)
        emit("artifact", kind="metrics", path=mpath)
        log(metrics_text(res))
        summary.update({k: v for k, v in res.items() if k not in ("inference_ms", "fps")})
    emit("done", summary=summary)


class Exported(torch.nn.Module):
    """Probabilities inside the graph at the input size (w x h), averaged over the test-time views (flips OpenCV
    can load, tta.py); with overlap_mask=true also the class map (argmax, 0 = background)."""

    def __init__(self, model, w, h, tta="off"):
        super().__init__()
        self.model, self.tta, self.sides = model, tta, (w, h, w // 4, h // 4)
        # one flip matrix per side length (an equal copy would come out of the export as an Identity node OpenCV
        # rejects): the input's sides, and the quarter sides the views are mapped back at
        for n in set(self.sides):
            self.register_buffer(f"anti_{n}", anti_identity(n))

    def forward(self, images):
        w, h, w4, h4 = (getattr(self, f"anti_{n}") for n in self.sides)
        probs = pixel_probs(self.model, images, self.tta, (w, h), (w4, h4))
        if self.model.overlap:
            return probs, probs.argmax(1).to(torch.float32)
        return probs


def export(args):
    """Input: letterboxed imgsz square, or the camera --width/--height scaled so its long side is imgsz (multiples
    of 32; the network is fully convolutional). --tta puts the views into the graph; a wide input keeps the 4
    flips of dihedral (its views run as one batch of one shape)."""
    conf = onnx_io.check_args(args, "segment")
    tta = check_mode(args.tta, "segment")
    model, ck = load_checkpoint(args.model, "cpu")
    s = ck["imgsz"]
    w, h = input_size(int(args.width), int(args.height), s) if args.width and args.height else (s, s)
    tta = graph_mode(tta, w, h, "it averages the 4 flips")  # its views run as one batch of one shape
    overlap = model.overlap
    outputs = ["probs", "classes"] if overlap else ["probs"]
    meta = {"labels": ck["names"], "task": "segment", "imgsz": s, "overlap_mask": overlap, "conf": conf, "tta": tta,
            "camera_width": args.width, "camera_height": args.height, "model_size": ck["size"],
            "output": ("probs [1, nc+1, H, W] softmax, channel 0 = background; classes [1, H, W] float class "
                       "index, 0 = background" if overlap else
                       "probs [1, nc, H, W] sigmoid per class; a pixel belongs to a class at >= conf")}
    onnx_io.write(Exported(model, w, h, tta), h, w, args.out, outputs, meta)
