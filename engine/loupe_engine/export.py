"""ONNX export with decoding and NMS inside the graph, and Loupe metadata in the model's metadata_props.

Graph: input `images` float32 [1,3,H,W], RGB in 0..1, letterboxed exactly as in data/augment.py;
output `detections` float32 [K,6] = x1,y1,x2,y2,score,class (detect) or [K,7] = cx,cy,w,h,theta,score,class
(obb, theta in radians), in input pixels, sorted by score. packages/runtime undoes the letterbox.

With `--no-nms` the graph stops before thresholds and NMS, for runtimes without NonMaxSuppression (OpenCV DNN,
which Debian ships; the Python SDK does NMS with cv2.dnn.NMSBoxes): output `candidates` float32 [1,A,4+nc]
= x1,y1,x2,y2 then one score per class (detect) or [1,A,5+nc] = cx,cy,w,h,theta then the scores (obb), one row
per anchor. That graph uses only operators OpenCV 4.6 imports: static channel slices instead of chunk's
shape arithmetic, the distribution expectation as a 1x1 convolution instead of ReduceSum, and anchors as
constants of the fixed input size. OpenCV cannot load flips either, so test-time augmentation is then the
caller's: the graph runs the one view it is given, and the metadata names the views (`tta`) and the pyramid's
`strides` that map them back."""
import json
import math
import os
import types

import torch

from loupe_engine import __version__
from loupe_engine.events import EngineError, emit, log
from loupe_engine.models.blocks import C2f
from loupe_engine.models.detector import REG_MAX, anchors
from loupe_engine.models.load import load_checkpoint
from loupe_engine.nms import NMS_IOU, postprocess
from loupe_engine.tta import check_mode, graph_mode, predict


class Exported(torch.nn.Module):
    def __init__(self, model, conf, iou, max_det, agnostic, tta="off", lines=False):
        super().__init__()
        self.model, self.conf, self.iou, self.max_det, self.agnostic = model, conf, iou, max_det, agnostic
        self.tta, self.lines = tta, lines

    def forward(self, images):
        boxes, scores = predict(self.model, images, self.tta)
        return postprocess(boxes[0], scores[0], conf=self.conf, iou=self.iou, agnostic=self.agnostic,
                           max_det=self.max_det, lines=self.lines)


def _c2f_static(self, x):
    """C2f.forward with the split as two fixed slices: chunk() exports as Shape/Gather arithmetic OpenCV rejects."""
    x = self.cv1(x)
    y = [x[:, :self.c], x[:, self.c:]]
    for m in self.m:
        y.append(m(y[-1]))
    return self.cv2(torch.cat(y, 1))


class Candidates(torch.nn.Module):
    """Every anchor's decoded box and class scores, the same numbers as models.detector.decode, for one fixed
    input size. Constants are full-size tensors: OpenCV 4.6 mis-shapes a broadcast multiply by a constant."""

    def __init__(self, model, width, height):
        super().__init__()
        self.model = model
        for m in model.modules():
            if isinstance(m, C2f):
                m.forward = types.MethodType(_c2f_static, m)
        with torch.no_grad():
            shapes = model(torch.zeros(1, 3, height, width))["shapes"]
        pts, st = anchors(shapes, model.stride.tolist(), "cpu")
        a = pts.shape[0]
        self.a = a
        self.register_buffer("pts", pts.T.reshape(1, 2, a).contiguous())
        self.register_buffer("st", st.T.reshape(1, 1, a).expand(1, 4, a).contiguous())
        self.register_buffer("proj", torch.arange(REG_MAX, dtype=torch.float32).view(1, REG_MAX, 1, 1))

    def forward(self, images):
        out = self.model(images)
        p = out["box"].view(1, 4, REG_MAX, self.a).transpose(1, 2).softmax(1)
        dist = torch.nn.functional.conv2d(p, self.proj).view(1, 4, self.a) * self.st  # l,t,r,b in px
        lt, rb = dist[:, :2], dist[:, 2:]
        scores = out["cls"].sigmoid()
        if "ang" in out:
            theta = (out["ang"].sigmoid() - 0.25) * math.pi
            cos, sin = torch.cos(theta), torch.sin(theta)
            xf, yf = (rb[:, :1] - lt[:, :1]) / 2, (rb[:, 1:] - lt[:, 1:]) / 2
            boxes = torch.cat([xf * cos - yf * sin + self.pts[:, :1], xf * sin + yf * cos + self.pts[:, 1:],
                               lt + rb, theta], 1)
        else:
            boxes = torch.cat([self.pts - lt, self.pts + rb], 1)
        return torch.cat([boxes, scores], 1).transpose(1, 2)


def input_size(width, height, imgsz):
    """Camera resolution -> model input: the long side becomes imgsz (the scale the model was trained at),
    each side rounded up to a multiple of the largest stride (32). In integers: with the scale as a float,
    200x200 at 224 px gave ceil(200 * 1.12 / 32) = ceil(7.000000000000001) = 8, a 256x256 graph (1.3x the pixels
    at a scale the model never saw)."""
    side = max(width, height)
    return tuple(-(-int(v) * imgsz // (side * 32)) * 32 for v in (width, height))


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
    from loupe_engine.tasks import runner_for_checkpoint
    task_runner = runner_for_checkpoint(args.model) if args.model else None
    if task_runner:  # classify, segment, ocr: the module's package names the task
        check_mode(args.tta, task_runner.__name__.split(".")[1])
        return task_runner.export(args)
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
    iou = NMS_IOU if args.iou is None else float(args.iou)
    for k, v in (("conf", conf), ("iou", iou)):
        if not 0 <= v <= 1:
            problems.append(f"{k}={v}: must be between 0 and 1")
    if not args.model:
        problems.append("--model is required")
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    model, ck = load_checkpoint(args.model, "cpu")
    tta = check_mode(args.tta, ck["task"])
    nms = args.nms is not False
    emit("phase", phase="exporting")
    w, h = input_size(int(args.width), int(args.height), ck["imgsz"])
    if not nms:  # the graph's anchors are constants of its one input size
        tta = graph_mode(tta, w, h, "its metadata asks the caller for the 4 flips")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    dummy = torch.rand(1, 3, h, w)
    with torch.no_grad():
        if nms:
            wrapper = Exported(model, conf, iou, int(args.max_det), bool(args.agnostic), tta).eval()
            torch.onnx.export(wrapper, dummy, args.out, opset_version=17, input_names=["images"],
                              output_names=["detections"], dynamic_axes={"detections": {0: "count"}},
                              do_constant_folding=True)
        else:
            torch.onnx.export(Candidates(model, w, h).eval(), dummy, args.out, opset_version=17,
                              input_names=["images"], output_names=["candidates"], do_constant_folding=True)
    box_cols = "x1,y1,x2,y2" if ck["task"] == "detect" else "cx,cy,w,h,theta"
    meta = {"labels": ck["names"], "task": ck["task"], "input_width": w, "input_height": h,
            "camera_width": int(args.width), "camera_height": int(args.height), "imgsz": ck["imgsz"],
            "conf": conf, "iou": iou, "max_det": int(args.max_det), "agnostic": bool(args.agnostic), "tta": tta,
            "strides": [int(v) for v in model.stride.tolist()],
            "version": __version__, "model_size": ck["size"],
            "nms": nms, "output": f"{box_cols},score,class" if nms else f"{box_cols},scores[{len(ck['names'])}]",
            "letterbox": {"pad_value": 114, "interpolation": "bilinear"}}
    add_metadata(args.out, {"loupe": json.dumps(meta), "labels": json.dumps(ck["names"]), "task": ck["task"],
                            "input_size": f"{w}x{h}", "version": __version__})
    log(f"exported {args.out}: input {w}x{h}, {len(ck['names'])} classes, "
        f"{'NMS in graph' if nms else 'no NMS (candidates per anchor)'}")
    emit("artifact", kind="onnx", path=args.out)
    emit("done", summary={"path": args.out, "input_width": w, "input_height": h, "task": ck["task"], "nms": nms,
                          "tta": tta, "labels": ck["names"], "conf": conf, "iou": iou, "max_det": int(args.max_det),
                          "size_mb": os.path.getsize(args.out) / 1e6})
