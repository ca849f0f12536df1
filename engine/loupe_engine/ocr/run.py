"""`train`, `test` and `export` for OCR (called by commands.py and export.py for task ocr)."""
import json
import math
import os
import time

import cv2
import numpy as np
import torch

from loupe_engine import __version__, config, device
from loupe_engine.data.coco import check_images, load_coco
from loupe_engine.events import EngineError, emit, log
from loupe_engine.half import apply_half
from loupe_engine.export import Candidates, Exported, add_metadata, input_size
from loupe_engine.losses.iou import rbox_corners
from loupe_engine.models.detector import Detector
from loupe_engine.models.load import checkpoint_arch, read_checkpoint
from loupe_engine.nms import NMS_IOU
from loupe_engine.ocr import val as V
from loupe_engine.ocr.crop import LINE_ASPECT, MARGIN, MARGIN_X, PAD, REC_HEIGHT
from loupe_engine.ocr.data import load_texts, read_rgb
from loupe_engine.ocr.model import STRIDE, ExportedRecognizer, build_recognizer
from loupe_engine.ocr.train import OcrTrainer
from loupe_engine.tasks import apply_task_rules
from loupe_engine.trainer import report

OCR_KEYS = ("char_acc", "line_acc", "ned", "rec_char_acc", "rec_line_acc", "rec_ned")


def _line(kw):
    m = kw["metrics"]
    extra = ""
    if "mAP50" in m:
        extra = (f" mAP50 {m['mAP50']:.3f} char_acc {m['char_acc']:.3f} line_acc {m['line_acc']:.3f} "
                 f"ned {m['ned']:.3f} (on labelled boxes {m['rec_char_acc']:.3f}/{m['rec_line_acc']:.3f})")
    return f"epoch {kw['epoch']}/{kw['epochs']} loss {m['loss']:.3f}{extra} {m['img_per_s']:.1f} img/s"


def metrics_text(res):
    return (f"detection: P {res['precision']:.3f}  R {res['recall']:.3f}  mAP50 {res['mAP50']:.4f}  "
            f"mAP50-95 {res['mAP50_95']:.4f}\n"
            f"end to end: char_acc {res['char_acc']:.4f}  line_acc {res['line_acc']:.4f}  ned {res['ned']:.4f}  "
            f"({res['lines']} lines)\n"
            f"recognizer on the labelled boxes: char_acc {res['rec_char_acc']:.4f}  line_acc "
            f"{res['rec_line_acc']:.4f}  ned {res['rec_ned']:.4f}\n"
            f"{res['inference_ms']:.1f} ms/image detection, {res['rec_ms_per_image']:.1f} ms/image recognition")


def load(path, device="cpu"):
    """(detector, recognizer, checkpoint) of an OCR checkpoint."""
    if not path or not os.path.isfile(path):
        raise EngineError("model_missing", f"model checkpoint not found: {path}")
    try:
        ck = read_checkpoint(path, device)
        det = Detector(len(ck["names"]), ck["size"], rotated=True, arch=checkpoint_arch(ck))
        det.load_state_dict(ck["model"])
        rec = build_recognizer(ck["rec"])
    except EngineError:
        raise
    except Exception as e:
        raise EngineError("model_invalid", f"{path} is not a Loupe OCR checkpoint: {e}")
    return det.to(device).eval(), rec.to(device), ck


def train(args):
    missing = [f"--{k} is required" for k in ("data", "images") if not getattr(args, k, None)]
    if missing:
        raise EngineError("missing_argument", "; ".join(missing))
    overrides = {**args.params, **config.parse_set(args.set)}
    cfg = apply_task_rules("ocr", config.validate(overrides), overrides)
    tr = OcrTrainer(cfg, args.data, args.val, args.images, args.out, callbacks=report.callbacks(_line),
                    max_seconds=args.max_seconds, resume=args.resume)
    tr.train()
    emit("phase", phase="validating")
    det, rec, ck = load(os.path.join(args.out, "best.pt"), tr.device)
    res = V.evaluate(det, rec, tr.val_records, tr.val_texts, tr.names, ck["rec"]["charset"], ck["rec"]["width"],
                     cfg.imgsz, criterion=tr.criterion, text_formats=ck["rec"].get("text_formats"))
    log(metrics_text(res))
    base = baseline(tr.val_records, tr.val_texts)
    res.update(base)
    tr.task = "ocr"
    report.finish(args, tr, det, res, {k: res[k] for k in ("mAP50", "mAP50_95", *OCR_KEYS)}
                  | {"suggested_conf": res["best_f1_conf"], "charset": "".join(ck["rec"]["charset"]),
                     "rec_width": ck["rec"]["width"], "best_epochs": ck["best_epochs"],
                     "rec_param_count": sum(p.numel() for p in rec.parameters())} | base)


def baseline_crops(records, texts):
    """The labelled text boxes of `records` cut upright with a little context (ocr/crop.py's margins) at the image's
    own resolution (at least REC_HEIGHT px high) as uint8 RGB, and their texts."""
    crops, truths = [], []
    for r in records:
        lines = [(b, t) for _, b, t in texts.get(r["id"], []) if t]
        if lines:
            img = read_rgb(r)
            crops += [upright(img, b) for b, _ in lines]
            truths += [t for _, t in lines]
    return crops, truths


def upright(img, box):
    cx, cy, w, h, ang = box
    bw, bh = w + 2 * MARGIN_X * h, h + 2 * MARGIN * h
    k = max(1.0, REC_HEIGHT / max(bh, 1e-6))  # output pixels per image pixel
    W, H = max(8, round(bw * k)), max(REC_HEIGHT, round(bh * k))
    t = math.radians(ang)
    c, s = math.cos(t) / k, math.sin(t) / k
    # output pixel (X, Y) -> image: centre + rotation of the pixel's centre (X + 0.5 - W/2, Y + 0.5 - H/2) / k,
    # less half a pixel (as rectify samples)
    u, v = 0.5 - W / 2, 0.5 - H / 2
    m = np.array([[c, -s, cx - 0.5 + c * u - s * v], [s, c, cy - 0.5 + s * u + c * v]])
    return cv2.warpAffine(img, m, (W, H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def baseline(records, texts):
    """The zero-shot reader (ocr/baseline.py) on the validation boxes: {baseline_char_acc, baseline_line_acc,
    baseline_reader}, or {} when none is installed (or no box has a text)."""
    try:
        from loupe_engine.ocr.baseline import read_baseline
    except ImportError:
        return {}
    crops, truths = baseline_crops(records, texts)
    if not crops:
        return {}
    try:
        got = read_baseline(crops, truths)
    except Exception as e:  # noqa: BLE001 - a reader that fails must not cost the user the trained model
        log(f"note: the zero-shot reader failed ({type(e).__name__}: {e}); no baseline")
        return {}
    if not got:
        return {}
    log(f"zero-shot baseline ({got['reader']}, {got['n']} boxes): char_acc {got['char_acc']:.4f}  "
        f"line_acc {got['line_acc']:.4f}")
    return {"baseline_char_acc": got["char_acc"], "baseline_line_acc": got["line_acc"],
            "baseline_reader": got["reader"]}


def test(args):
    """One result per text found: image_id, category_id, score, rbox, bbox, segmentation (corners), text,
    text_score. With labelled boxes: detection metrics, end to end and recognizer metrics."""
    missing = [f"--{k} is required" for k in ("data", "images") if not getattr(args, k, None)]
    if missing:
        raise EngineError("missing_argument", "; ".join(missing))
    conf = 0.25 if args.conf is None else float(args.conf)
    iou = NMS_IOU if args.iou is None else float(args.iou)
    problems = [f"{k}={v}: must be between 0 and 1" for k, v in (("conf", conf), ("iou", iou)) if not 0 <= v <= 1]
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    dev = device.current()
    det, rec, ck = load(args.model, dev)
    dtype = apply_half(args.half, dev, det, rec)  # both networks: the input of each follows its own (half.py)
    names = ck["names"]
    emit("phase", phase="testing")
    records, _, _ = load_coco(args.data, args.images, "obb", names=names, need_boxes=False)
    check_images(records, keep=False)
    texts = load_texts(args.data, names)
    with open(args.data) as f:
        data_cats = {c["name"]: c["id"] for c in json.load(f).get("categories") or []}
    cat_of = [data_cats.get(n, ck.get("cat_ids", {}).get(i, i + 1)) for i, n in enumerate(names)]
    results, t0 = [], time.time()

    def on_image(r, pred, reads):
        if not len(pred):
            return
        poly = rbox_corners(torch.from_numpy(pred[:, :5])).numpy()
        for p, pts, (text, score) in zip(pred.tolist(), poly, reads):
            x0, y0 = pts.min(0)
            x1, y1 = pts.max(0)
            results.append({"image_id": r["id"], "category_id": cat_of[int(p[6])], "score": round(p[5], 5),
                            "rbox": [round(v, 2) for v in p[:4]] + [round(float(np.rad2deg(p[4])), 2)],
                            "bbox": [round(float(v), 2) for v in (x0, y0, x1 - x0, y1 - y0)],
                            "segmentation": [[round(float(v), 2) for v in pts.reshape(-1)]],
                            "text": text, "text_score": round(score, 5)})

    has_gt = any(len(r["cls"]) for r in records)
    res = V.evaluate(det, rec, records, texts, names, ck["rec"]["charset"], ck["rec"]["width"], ck["imgsz"],
                     conf=conf, iou=iou, on_image=on_image, agnostic=bool(args.agnostic),
                     text_formats=ck["rec"].get("text_formats"))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f)
    emit("artifact", kind="predictions", path=args.out)
    summary = {"images": len(records), "detections": len(results), "conf": conf, "iou": iou, "dtype": dtype,
               "inference_ms": res["inference_ms"], "rec_ms_per_image": res["rec_ms_per_image"],
               "fps": 1000 / max(res["inference_ms"] + res["rec_ms_per_image"], 1e-6),
               "wall_s": round(time.time() - t0, 2)}
    if has_gt:
        mpath = os.path.splitext(args.out)[0] + ".metrics.json"
        with open(mpath, "w") as f:
            json.dump(res, f, indent=1)
        emit("artifact", kind="metrics", path=mpath)
        log(metrics_text(res))
        summary.update({k: res[k] for k in ("precision", "recall", "f1", "mAP50", "mAP50_95", "best_f1_conf",
                                            "per_class", "confusion_matrix", "lines", *OCR_KEYS)})
        summary["suggested_conf"] = res["best_f1_conf"]
    emit("done", summary=summary)


def export(args):
    """X.onnx: the text detector, exactly an obb export (task metadata 'ocr'); X-rec.onnx next to it: the
    recognizer (engine/README.md, OCR)."""
    fmt = (args.format or "onnx").lower()
    problems = [] if fmt == "onnx" else [f"format {fmt!r}: only onnx is supported"]
    for key in ("width", "height", "max_det"):
        v = getattr(args, key)
        if v is None:
            problems.append(f"--{key.replace('_', '-')} is required")
        elif int(v) <= 0:
            problems.append(f"{key}={v}: must be greater than 0")
    conf = 0.25 if args.conf is None else float(args.conf)
    iou = NMS_IOU if args.iou is None else float(args.iou)
    problems += [f"{k}={v}: must be between 0 and 1" for k, v in (("conf", conf), ("iou", iou)) if not 0 <= v <= 1]
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    det, rec, ck = load(args.model, "cpu")
    emit("phase", phase="exporting")
    w, h = input_size(int(args.width), int(args.height), ck["imgsz"])
    nms = args.nms is not False
    out = args.out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    rec_out = os.path.splitext(out)[0] + "-rec.onnx"
    charset, rw = ck["rec"]["charset"], ck["rec"]["width"]
    with torch.no_grad():
        dummy = torch.rand(1, 3, h, w)
        if nms:
            graph = Exported(det, conf, iou, int(args.max_det), bool(args.agnostic), lines=True).eval()
            torch.onnx.export(graph, dummy, out, opset_version=17, input_names=["images"], output_names=["detections"],
                              dynamic_axes={"detections": {0: "count"}}, do_constant_folding=True)
        else:
            torch.onnx.export(Candidates(det, w, h).eval(), dummy, out, opset_version=17, input_names=["images"],
                              output_names=["candidates"], do_constant_folding=True)
        torch.onnx.export(ExportedRecognizer(rec).eval(), torch.rand(1, 3, REC_HEIGHT, rw), rec_out,
                          opset_version=17, input_names=["images"], output_names=["probs"],
                          dynamic_axes={"images": {0: "batch"}, "probs": {0: "batch"}}, do_constant_folding=True)
    meta = {"labels": ck["names"], "task": "ocr", "input_width": w, "input_height": h,
            "camera_width": int(args.width), "camera_height": int(args.height), "imgsz": ck["imgsz"],
            "conf": conf, "iou": iou, "max_det": int(args.max_det), "agnostic": bool(args.agnostic),
            "version": __version__, "model_size": ck["size"], "nms": nms,
            "output": "cx,cy,w,h,theta,score,class" if nms else f"cx,cy,w,h,theta,scores[{len(ck['names'])}]",
            "letterbox": {"pad_value": 114, "interpolation": "bilinear"},
            "recognizer": os.path.basename(rec_out), "text_formats": ck["rec"].get("text_formats") or []}
    add_metadata(out, {"loupe": json.dumps(meta), "labels": json.dumps(ck["names"]), "task": "ocr",
                       "input_size": f"{w}x{h}", "version": __version__})
    rmeta = {"task": "ocr-recognizer", "charset": charset, "blank": 0, "input_height": REC_HEIGHT,
             "input_width": rw, "steps": rw // STRIDE, "margin": MARGIN, "margin_x": MARGIN_X, "pad_value": PAD,
             "line_aspect": LINE_ASPECT,
             "version": __version__,
             "output": f"probs [N, {rw // STRIDE}, {len(charset) + 1}]: softmax per step; class 0 = CTC blank, class k = "
                       "charset[k - 1]"}
    add_metadata(rec_out, {"loupe": json.dumps(rmeta), "charset": json.dumps(charset), "blank": "0",
                           "task": "ocr-recognizer", "input_size": f"{rw}x{REC_HEIGHT}", "version": __version__})
    log(f"exported {out}: input {w}x{h}, {len(ck['names'])} classes, "
        f"{'NMS in graph' if nms else 'no NMS (candidates per anchor)'}; {rec_out}: input {rw}x{REC_HEIGHT}, "
        f"{len(charset)} characters")
    for path in (out, rec_out):
        emit("artifact", kind="onnx", path=path)
    emit("done", summary={"path": out, "recognizer_path": rec_out, "input_width": w, "input_height": h,
                          "task": "ocr", "nms": nms, "labels": ck["names"], "conf": conf, "iou": iou,
                          "max_det": int(args.max_det), "charset": "".join(charset), "rec_input_width": rw,
                          "rec_input_height": REC_HEIGHT,
                          "size_mb": (os.path.getsize(out) + os.path.getsize(rec_out)) / 1e6})
