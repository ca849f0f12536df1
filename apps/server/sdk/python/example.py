"""Loupe Python SDK example: python3 example.py IMAGE [--conf C]
Prints what the model finds on IMAGE as JSON, in the image's own pixels: detections, classes, objects or text lines.
A MEASURE model (sdk.json has measure) also prints each object's fields (px, and mm when calibrated) and the image's
OK/NG verdict with its reasons."""
import json
import os
import sys

import cv2

from loupe_sdk import Model, Reader, measure_detection, measure_instance, measurement, read_text

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
    class_map, instances = model.segment(image, conf=conf, masks=bool(sdk.get("measure")))
    out["pixelsPerClass"] = {model.labels[v - 1]: int((class_map == v).sum()) for v in range(1, len(model.labels) + 1)}
    out["instances"] = [{k: v for k, v in o.items() if k != "mask"} for o in instances]
    if sdk.get("measure"):
        out["measurement"] = measurement([(o["label"], o["score"], measure_instance(o)) for o in instances], sdk["measure"])
else:
    out["detections"] = model.detect(image, conf=conf)
    if sdk.get("measure"):
        out["measurement"] = measurement([(d["label"], d["score"], measure_detection(d)) for d in out["detections"]], sdk["measure"])
print(f"backend: {model.backend}", file=sys.stderr)
print(json.dumps(out, indent=1))
