"""Loupe Python SDK example: python3 example.py IMAGE [--conf C]
Prints the detections on IMAGE as JSON, boxes in the image's own pixels."""
import json
import os
import sys

import cv2

from loupe_sdk import Model

here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
if not args:
    sys.exit("usage: python3 example.py IMAGE [--conf C]")
conf = float(args[args.index("--conf") + 1]) if "--conf" in args else None
with open(os.path.join(here, "..", "sdk.json")) as f:
    sdk = json.load(f)
# GPU SDK types ask for CUDA; without a CUDA onnxruntime (or a CUDA build of OpenCV) the CPU runs the model.
model = Model(os.path.join(here, "..", "model-raw.onnx"), device="cpu" if sdk["sdkType"] == "cpu" else "cuda")
image = cv2.imread(args[0])
if image is None:
    sys.exit(f"cannot read image {args[0]}")
detections = model.detect(image, conf=conf)
print(f"backend: {model.backend}", file=sys.stderr)
print(json.dumps({"image": args[0], "width": image.shape[1], "height": image.shape[0], "detections": detections},
                 indent=1))
