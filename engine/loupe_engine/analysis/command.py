"""`analyze`: the statistics, health findings and recommendations of a model's whole dataset, written as
analysis.json (packages/contracts/src/agent.ts, DatasetAnalysis; engine/AGENT.md, Analysis)."""
import json
import os

from loupe_engine import device
from loupe_engine.analysis import data, findings, images, recommend, stats
from loupe_engine.events import EngineError, emit, log

DEFAULT_IMGSZ = 640


def analyse(path, images_dir, task, imgsz, cuda):
    """The DatasetAnalysis dict of the COCO file at `path` (every image of the dataset) for training at
    `imgsz`, with the model size recommended for CUDA or not. Emits `progress` while it reads the images."""
    ims, boxes, cats = data.load(path, task)
    images.measure_all(ims, images_dir)
    boxes = data.place(boxes, ims) if task != "classify" else []
    counts = stats.counts(ims, boxes, cats, task)
    class_images = {}
    if task == "classify":
        for im in ims:
            for c in im["classes"]:
                class_images.setdefault(c, []).append(im["id"])
    else:
        for b in boxes:
            if not b["degenerate"]:
                class_images.setdefault(b["cat"], []).append(b["image_id"])
    found = findings.image_findings(ims) + findings.class_findings(counts, class_images)
    if task != "classify":
        found += findings.box_findings(boxes, imgsz)
    recs, base = recommend.recommendations(task, ims, boxes, counts, imgsz, cuda)
    return {"task": task, "imgsz": imgsz, "counts": counts, "resolutions": stats.resolutions(ims),
            "boxes": stats.boxes_figures(boxes, imgsz) if task != "classify" else None,
            "findings": sorted(found, key=lambda f: ("error", "warning", "info").index(f["severity"])),
            "recommendations": recs, "baseParams": base}


def _imgsz(args):
    value = args.imgsz or (args.params or {}).get("imgsz") or DEFAULT_IMGSZ
    try:
        value = int(value)
    except (TypeError, ValueError):
        value = 0
    if value < 32 or value > 4096 or value % 32:
        raise EngineError("invalid_parameters", f"imgsz {value}: give a multiple of 32 from 32 to 4096")
    return value


def analyze(args):
    if not args.task:
        raise EngineError("missing_argument", "give --task")
    if not args.data or not args.images:
        raise EngineError("missing_argument", "give --data (COCO JSON of every image) and --images")
    imgsz = _imgsz(args)
    emit("phase", phase="analyzing")
    result = analyse(args.data, args.images, args.task, imgsz, device.current().type == "cuda")
    out = os.path.abspath(args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    # written whole, then renamed: the runner never reads half a file
    with open(out + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(out + ".tmp", out)
    log(f"analysed {result['counts']['images']} images: {len(result['findings'])} findings, "
        f"base params {result['baseParams']}")
    emit("artifact", kind="analysis", path=out)
    emit("done", summary={"findings": len(result["findings"]), "images": result["counts"]["images"]})
