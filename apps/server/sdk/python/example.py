"""Loupe Python SDK example: python3 example.py IMAGE [--conf C]
Prints what the model finds on IMAGE as JSON, in the image's own pixels: detections, classes, objects or text lines."""
import json
import os
import sys

import cv2

from loupe_sdk import Model, Reader, read_text

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
if not args:
    sys.exit("usage: python3 example.py IMAGE [--conf C]")
conf = float(args[args.index("--conf") + 1]) if "--conf" in args else None
with open(os.path.join(here, "..", "sdk.json")) as f:
    sdk = json.load(f)
# GPU SDK types ask for CUDA; without a CUDA onnxruntime (or a CUDA build of OpenCV) the CPU runs the model.
# A detector runs its graph without NMS; classifiers and segmenters have only model.onnx. OCR: the text detector
# without NMS finds the lines, model-rec.onnx reads them.
graph = "model-raw.onnx" if sdk["task"] in ("detect", "obb", "ocr") else "model.onnx"
model = Model(os.path.join(here, "..", graph), device="cpu" if sdk["sdkType"] == "cpu" else "cuda")
image = cv2.imread(args[0])
if image is None:
    sys.exit(f"cannot read image {args[0]}")
out = {"image": args[0], "width": image.shape[1], "height": image.shape[0], "task": model.task}
if model.task == "ocr":
    out["lines"] = read_text(model, Reader(os.path.join(here, "..", "model-rec.onnx")), image, conf=conf)
elif model.task == "classify":
    out["classes"] = model.classify(image, conf=conf)
elif model.task == "segment":
    class_map, out["instances"] = model.segment(image, conf=conf)
    out["pixelsPerClass"] = {model.labels[v - 1]: int((class_map == v).sum()) for v in range(1, len(model.labels) + 1)}
else:
    out["detections"] = model.detect(image, conf=conf)
print(f"backend: {model.backend}", file=sys.stderr)
print(json.dumps(out, indent=1))
