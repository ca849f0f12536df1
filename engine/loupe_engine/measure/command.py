"""`measure`: the measurement fields of every object and the OK/NG verdict of every image.

Objects come from a model (segment: instances of the predicted masks; obb: rotated boxes; detect: boxes, angle 0)
run on --data (COCO) or on every image in --images, or, without --model, from the labels of --data (polygons,
rotated boxes, boxes) to measure golden samples and set tolerances from them."""
import json
import os
import time

import numpy as np
import torch

from loupe_engine import device
from loupe_engine.data.coco import _read_json, check_images
from loupe_engine.events import EngineError, emit, log
from loupe_engine.half import apply_half
from loupe_engine.measure.fields import measure_polygon, measure_rbox, rounded
from loupe_engine.measure.tolerance import judge_image, parse_tolerances
from loupe_engine.models.load import load_checkpoint
from loupe_engine.nms import NMS_IOU
from loupe_engine.tta import check_mode

IMAGE_EXT = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".mpo", ".webp")


def _folder_records(images):
    if not images or not os.path.isdir(images):
        raise EngineError("missing_argument", "give --data (COCO) or an --images folder")
    files = sorted(f for f in os.listdir(images) if f.lower().endswith(IMAGE_EXT))
    if not files:
        raise EngineError("empty_dataset", f"{images}: no images")
    return [{"id": i + 1, "file": f, "path": os.path.join(images, f), "width": 0, "height": 0,
             "cls": np.zeros(0, np.int64), "pts": np.zeros((0, 4, 2), np.float32), "polys": []}
            for i, f in enumerate(files)]


def _from_labels(args, scale):
    """(records, names, objects per record) measured from the annotations of --data."""
    d = _read_json(args.data)
    names = {c["id"]: c["name"] for c in d.get("categories") or []}
    by_img = {}
    for a in d.get("annotations") or []:
        by_img.setdefault(a.get("image_id"), []).append(a)
    records, objects = [], []
    for im in d["images"]:
        objs = []
        for a in by_img.get(im["id"], []):
            seg, m = a.get("segmentation"), None
            if isinstance(seg, list) and seg and len(seg[0]) >= 6:
                m = measure_polygon([np.asarray(p, np.float64).reshape(-1, 2) for p in seg if len(p) >= 6], scale)
            elif a.get("rbox") is not None:
                m = measure_rbox(*[float(v) for v in a["rbox"]], scale=scale)
            elif a.get("bbox") and len(a["bbox"]) == 4:
                x, y, w, h = (float(v) for v in a["bbox"])
                m = measure_rbox(x + w / 2, y + h / 2, w, h, 0.0, scale=scale)
            if m is not None:
                objs.append({"category_id": a.get("category_id"), "label": names.get(a.get("category_id"), "?"),
                             "measure": rounded(m)})
        records.append({"id": im["id"], "file": im["file_name"]})
        objects.append(objs)
    return records, list(names.values()), objects


def _from_segment(model, ck, records, conf, scale, tta):
    from loupe_engine.segment import instances as inst
    from loupe_engine.segment.val import predict
    cat_ids, out = ck.get("cat_ids") or {}, [None] * len(records)
    for i, probs, _, ratio, _ in predict(model, records, ck["imgsz"], tta=tta):
        r = records[i]
        planes = inst.upsample(probs, r["width"], r["height"])
        out[i] = [{"category_id": cat_ids.get(o["cls"], o["cls"] + 1), "label": ck["names"][o["cls"]],
                   "score": round(o["score"], 5), "bbox": o["bbox"], "measure": o["measure"]}
                  for o in inst.instances(planes, model.overlap, conf, min_area=max(1, round(2 / ratio ** 2)),
                                          scale=scale)]
    return out


def _from_boxes(model, ck, records, conf, iou, scale, tta):
    from loupe_engine.trainer.validate import predict_batches
    rotated, cat_ids, out = ck["task"] == "obb", ck.get("cat_ids") or {}, [None] * len(records)
    for i, pred in predict_batches(model, records, ck["imgsz"], rotated, conf=conf, iou=iou, tta=tta):
        objs = []
        for p in pred.tolist():
            if rotated:
                m = measure_rbox(p[0], p[1], p[2], p[3], float(np.rad2deg(p[4])), scale)
            else:
                m = measure_rbox((p[0] + p[2]) / 2, (p[1] + p[3]) / 2, p[2] - p[0], p[3] - p[1], 0.0, scale)
            c = int(p[-1])
            objs.append({"category_id": cat_ids.get(c, c + 1), "label": ck["names"][c], "score": round(p[-2], 5),
                         "measure": rounded(m)})
        out[i] = objs
    return out


def measure(args):
    tol = parse_tolerances(getattr(args, "tolerances", None))
    scale = args.mm_per_px if args.mm_per_px is not None else tol.get("mm_per_px")
    if scale is not None and float(scale) <= 0:
        raise EngineError("invalid_parameters", f"mm_per_px={scale}: must be greater than 0")
    scale = float(scale) if scale is not None else None
    conf = (0.5 if args.conf is None else float(args.conf))
    iou = NMS_IOU if args.iou is None else float(args.iou)
    for k, v in (("conf", conf), ("iou", iou)):
        if not 0 <= v <= 1:
            raise EngineError("invalid_parameters", f"{k}={v}: must be between 0 and 1")
    emit("phase", phase="testing")
    t0 = time.time()
    if args.model:
        dev = device.current()
        model, ck = load_checkpoint(args.model, dev)
        if ck["task"] not in ("segment", "obb", "detect"):
            raise EngineError("invalid_task", f"measure needs a segment, obb or detect model, not {ck['task']}")
        tta = check_mode(getattr(args, "tta", None), ck["task"])
        apply_half(getattr(args, "half", None), dev, model)  # float16 on CUDA; a CPU notes it and keeps float32
        names = ck["names"]
        if args.data:
            if not args.images:
                raise EngineError("missing_argument", "--images is required with --data")
            if ck["task"] == "segment":
                from loupe_engine.segment.data import load_polygons
                records = load_polygons(args.data, args.images, names, need_labels=False)[0]
            else:
                from loupe_engine.data.coco import load_coco
                records = load_coco(args.data, args.images, ck["task"], names=names, need_boxes=False)[0]
        else:
            records = _folder_records(args.images)
        check_images(records, keep=False)
        objects = (_from_segment(model, ck, records, conf, scale, tta) if ck["task"] == "segment"
                   else _from_boxes(model, ck, records, conf, iou, scale, tta))
        source = f"model {os.path.basename(args.model)} ({ck['task']})"
    else:
        if not args.data:
            raise EngineError("missing_argument", "give --model (and --data or --images), or --data to measure labels")
        records, names, objects = _from_labels(args, scale)
        source = f"labels of {os.path.basename(args.data)}"
    images, n_ok = [], 0
    for r, objs in zip(records, objects):
        for k, o in enumerate(objs):
            o["index"] = k
        ok, reasons, counts = judge_image(objs, tol, names)
        n_ok += ok
        images.append({"image_id": r["id"], "file_name": r["file"], "ok": ok, "count": len(objs),
                       "counts": counts, "reasons": reasons, "objects": objs})
    unit = "mm" if scale else "px"
    result = {"unit": unit, "mm_per_px": scale, "source": source, "tolerances": tol, "images": images}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f)
    emit("artifact", kind="measurements", path=args.out)
    n = len(images)
    log(f"measured {sum(i['count'] for i in images)} objects on {n} images ({source}); OK {n_ok}, NG {n - n_ok}")
    emit("done", summary={"images": n, "objects": sum(i["count"] for i in images), "ok": n_ok, "ng": n - n_ok,
                          "ok_rate": n_ok / max(n, 1), "unit": unit, "wall_s": round(time.time() - t0, 2)})
