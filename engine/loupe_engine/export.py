"""ONNX export with decoding and NMS inside the graph, and Loupe metadata in the model's metadata_props.

Graph: input `images` float32 [1,3,H,W], RGB in 0..1, letterboxed exactly as in data/augment.py;
output `detections` float32 [K,6] = x1,y1,x2,y2,score,class (detect) or [K,7] = cx,cy,w,h,theta,score,class
(obb, theta in radians), in input pixels, sorted by score. packages/runtime undoes the letterbox."""
import json
import math
import os

import torch

from loupe_engine import __version__
from loupe_engine.events import EngineError, emit, log
from loupe_engine.models.detector import decode
from loupe_engine.models.load import load_checkpoint
from loupe_engine.nms import postprocess


class Exported(torch.nn.Module):
    def __init__(self, model, conf, iou, max_det, agnostic):
        super().__init__()
        self.model, self.conf, self.iou, self.max_det, self.agnostic = model, conf, iou, max_det, agnostic

    def forward(self, images):
        boxes, scores = decode(self.model(images), self.model.stride)
        return postprocess(boxes[0], scores[0], conf=self.conf, iou=self.iou, agnostic=self.agnostic,
                           max_det=self.max_det)


def input_size(width, height, imgsz):
    """Camera resolution -> model input: the long side becomes imgsz (the scale the model was trained at),
    each side rounded up to a multiple of the largest stride (32)."""
    r = imgsz / max(width, height)
    return int(math.ceil(width * r / 32) * 32), int(math.ceil(height * r / 32) * 32)


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _ld(field, payload):
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def add_metadata(path, meta):
    """Append ModelProto.metadata_props (field 14) entries; protobuf merges repeated fields appended at the end,
    so no onnx package is needed."""
    extra = b"".join(_ld(14, _ld(1, k.encode()) + _ld(2, v.encode())) for k, v in meta.items())
    with open(path, "ab") as f:
        f.write(extra)


def export(args):
    fmt = (args.format or "onnx").lower()
    problems = []
    if fmt != "onnx":
        problems.append(f"format {fmt!r}: only onnx is supported")
    for key in ("width", "height", "max_det"):
        v = getattr(args, key)
        if v is None:
            problems.append(f"--{key.replace('_', '-')} is required")
        elif int(v) <= 0:
            problems.append(f"{key}={v}: must be greater than 0")
    conf = 0.25 if args.conf is None else float(args.conf)
    iou = 0.7 if args.iou is None else float(args.iou)
    for k, v in (("conf", conf), ("iou", iou)):
        if not 0 <= v <= 1:
            problems.append(f"{k}={v}: must be between 0 and 1")
    if not args.model:
        problems.append("--model is required")
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    model, ck = load_checkpoint(args.model, "cpu")
    emit("phase", phase="exporting")
    w, h = input_size(int(args.width), int(args.height), ck["imgsz"])
    wrapper = Exported(model, conf, iou, int(args.max_det), bool(args.agnostic)).eval()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    dummy = torch.rand(1, 3, h, w)
    with torch.no_grad():
        torch.onnx.export(wrapper, dummy, args.out, opset_version=17, input_names=["images"],
                          output_names=["detections"], dynamic_axes={"detections": {0: "count"}},
                          do_constant_folding=True)
    meta = {"labels": ck["names"], "task": ck["task"], "input_width": w, "input_height": h,
            "camera_width": int(args.width), "camera_height": int(args.height), "imgsz": ck["imgsz"],
            "conf": conf, "iou": iou, "max_det": int(args.max_det), "agnostic": bool(args.agnostic),
            "version": __version__, "model_size": ck["size"],
            "output": "x1,y1,x2,y2,score,class" if ck["task"] == "detect" else "cx,cy,w,h,theta,score,class",
            "letterbox": {"pad_value": 114, "interpolation": "bilinear"}}
    add_metadata(args.out, {"loupe": json.dumps(meta), "labels": json.dumps(ck["names"]), "task": ck["task"],
                            "input_size": f"{w}x{h}", "version": __version__})
    log(f"exported {args.out}: input {w}x{h}, {len(ck['names'])} classes, NMS in graph")
    emit("artifact", kind="onnx", path=args.out)
    emit("done", summary={"path": args.out, "input_width": w, "input_height": h, "task": ck["task"],
                          "size_mb": os.path.getsize(args.out) / 1e6})
