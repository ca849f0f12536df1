"""ONNX writing shared by the classify and segment exports: argument checks, torch's exporter at opset 17, and
Loupe's metadata (the detection export's `add_metadata`, so every model carries the same keys)."""
import json
import os

import torch

from loupe_engine import __version__
from loupe_engine.events import EngineError, emit, log
from loupe_engine.export import add_metadata


def check_args(args, task):
    """format onnx; width and height optional (> 0 when given); conf 0..1. max_det, iou and agnostic are
    detection settings and are ignored (with a note)."""
    fmt = (args.format or "onnx").lower()
    problems = [] if fmt == "onnx" else [f"format {fmt!r}: only onnx is supported"]
    for key in ("width", "height"):
        v = getattr(args, key, None)
        if v is not None and int(v) <= 0:
            problems.append(f"{key}={v}: must be greater than 0")
    conf = 0.5 if getattr(args, "conf", None) is None else float(args.conf)
    if not 0 <= conf <= 1:
        problems.append(f"conf={conf}: must be between 0 and 1")
    if not args.model:
        problems.append("--model is required")
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    unused = [k for k in ("max_det", "iou", "agnostic") if getattr(args, k, None)]
    if unused:
        log(f"note: {', '.join(unused)} do(es) not apply to {task} exports and are ignored")
    return conf


def write(wrapper, h, w, out, output_names, meta):
    """Export `wrapper` for a [1, 3, h, w] RGB 0..1 input named `images`, then append the metadata."""
    emit("phase", phase="exporting")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(wrapper.eval(), torch.rand(1, 3, h, w), out, opset_version=17, input_names=["images"],
                          output_names=output_names, do_constant_folding=True)
    meta = {**meta, "input_width": w, "input_height": h, "version": __version__,
            "letterbox": {"pad_value": 114, "interpolation": "bilinear"}}
    add_metadata(out, {"loupe": json.dumps(meta), "labels": json.dumps(meta["labels"]), "task": meta["task"],
                       "input_size": f"{w}x{h}", "version": __version__})
    log(f"exported {out}: input {w}x{h}, {len(meta['labels'])} classes, outputs {', '.join(output_names)}")
    emit("artifact", kind="onnx", path=out)
    # labels and conf as the detector's export reports them: the platform's SDK ZIP is built from this summary
    emit("done", summary={"path": out, "input_width": w, "input_height": h, "task": meta["task"],
                          "labels": meta["labels"], "conf": meta.get("conf"), "tta": meta.get("tta", "off"),
                          "size_mb": os.path.getsize(out) / 1e6})
