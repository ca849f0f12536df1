"""Command line, the same for the platform's runner and a user at a terminal (see engine/README.md).
Errors a user can fix become one `error` event and exit code 2; SIGTERM exits 130."""
import argparse
import json
import os
import signal
import sys

from loupe_engine.cpu import kernel_env
from loupe_engine import device
from loupe_engine.device import launched_world
from loupe_engine.events import Cancelled, EngineError, emit, install_sigterm, log, quiet

SPEC_KEYS = {"task", "data", "val", "images", "out", "model", "params", "test", "export", "resume", "max_seconds",
             "measure", "device", "analyze", "tune"}


def _threads():
    # before torch runs an operator: its element-wise kernels are chosen once, at the first (cpu.kernel_env); the
    # data-parallel helpers inherit the choice with the environment
    os.environ.update(kernel_env())
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch
    # the cores this process may run on (taskset, a container's cpuset), not every core of the machine; torchrun's
    # processes on one node share them (each with every core, N processes would fight over them)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    local = int(os.environ.get("LOCAL_WORLD_SIZE", "1")) if launched_world() else 1
    torch.set_num_threads(max(1, cores // max(local, 1)))


def build_parser():
    p = argparse.ArgumentParser(prog="python3 -m loupe_engine", description="Loupe vision engine")
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("train", "test", "export", "measure"):
        s = sub.add_parser(name)
        s.add_argument("--spec", help="job.json written by the platform's runner (see README)")
        s.add_argument("--workdir", help="folder that relative paths in --spec refer to, and outputs go to")
        s.add_argument("--device", help="cpu, cuda or cuda:N (default: LOUPE_DEVICE, else CUDA when present)"
                                        + ("; export traces on the CPU whatever the device" if name == "export"
                                           else ""))
        if name == "train":
            s.add_argument("--task", choices=("detect", "obb", "classify", "segment", "ocr"))
            s.add_argument("--data", help="COCO JSON of the training images (or of all, with per-image split); "
                                          "classify also takes a folder of class folders")
            s.add_argument("--val", help="COCO JSON of the validation images")
            s.add_argument("--images", help="folder the COCO file names are relative to")
            s.add_argument("--out", help="run folder for last.pt, best.pt and results.json")
            s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a training parameter")
            s.add_argument("--resume", action="store_true", help="continue the run in --out from last.pt")
            s.add_argument("--max-seconds", type=float, help="wall-clock budget in seconds; overrides `time` "
                                                             "(benchmarks and tests)")
        if name == "test":
            s.add_argument("--model")
            s.add_argument("--data")
            s.add_argument("--images")
            s.add_argument("--out", help="COCO results JSON to write")
            s.add_argument("--conf", type=float)
            s.add_argument("--iou", type=float)
            s.add_argument("--agnostic", action="store_true", default=None)
            s.add_argument("--half", action="store_true", default=None)
            s.add_argument("--tta", help="test-time augmentation (detect, obb, classify, segment): off (default), "
                                         "hflip, flips or dihedral: the image in 1, 2, 4 or 8 views, averaged "
                                         "(README)")
            s.add_argument("--masks", choices=("polygon", "rle"), help="segment: instance masks as COCO polygons "
                                                                       "(default) or uncompressed RLE")
        if name == "measure":
            s.add_argument("--model", help="segment, obb or detect checkpoint; without it the labels of --data "
                                           "are measured")
            s.add_argument("--data", help="COCO JSON of the images (and labels)")
            s.add_argument("--images", help="image folder (all its images when --data is not given)")
            s.add_argument("--out", help="measurements JSON to write")
            s.add_argument("--conf", type=float)
            s.add_argument("--iou", type=float)
            s.add_argument("--mm-per-px", type=float, dest="mm_per_px", help="calibration: mm per pixel")
            s.add_argument("--tolerances", help="tolerances JSON file or inline JSON (engine/README.md)")
            s.add_argument("--tta", help="test-time augmentation of the --model, as for test")
            s.add_argument("--half", action="store_true", default=None, help="float16 inference of the --model on "
                                                                             "CUDA, as for test")
        if name == "export":
            s.add_argument("--model")
            s.add_argument("--format", default=None)
            s.add_argument("--width", type=int)
            s.add_argument("--height", type=int)
            s.add_argument("--max-det", type=int, dest="max_det")
            s.add_argument("--conf", type=float)
            s.add_argument("--iou", type=float)
            s.add_argument("--agnostic", action="store_true", default=None)
            s.add_argument("--nms", action=argparse.BooleanOptionalAction, default=None,
                           help="NMS inside the graph (default); --no-nms leaves it to the caller (OpenCV DNN)")
            s.add_argument("--tta", help="test-time augmentation (detect, obb, classify, segment), as for test: "
                                         "inside the graph; a detector's with --no-nms named in the metadata for "
                                         "the caller to run")
            s.add_argument("--out")
    # the agent's commands (issue 35): loupe_engine/analysis and loupe_engine/agent
    s = sub.add_parser("analyze", help="dataset statistics, health findings and recommendations (AGENT.md, Analysis)")
    s.add_argument("--spec")
    s.add_argument("--workdir")
    s.add_argument("--device")
    s.add_argument("--task", choices=("detect", "obb", "classify", "segment", "ocr"))
    s.add_argument("--data", help="COCO JSON of every image of the dataset (per-image split; unlabelled ones too)")
    s.add_argument("--images")
    s.add_argument("--out", help="analysis JSON to write")
    s.add_argument("--imgsz", type=int, help="the image size training will use (default: params.imgsz, else 640)")
    s = sub.add_parser("tune", help="the agent's parameter search (AGENT.md, Tuning)")
    s.add_argument("--spec")
    s.add_argument("--workdir")
    s.add_argument("--device")
    s.add_argument("--task", choices=("detect", "obb", "classify", "segment", "ocr"))
    s.add_argument("--data")
    s.add_argument("--val")
    s.add_argument("--images")
    s.add_argument("--out", help="folder for the trials' runs and tune.json")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a parameter of the base config")
    s.add_argument("--budget-s", type=float, dest="budget_s", help="wall-clock budget of the search in seconds")
    s.add_argument("--early-stop", type=int, dest="early_stop", help="stop after this many trials without gain")
    s.add_argument("--seeds", type=int, help="seeds per configuration in the adoption check (default 2)")
    return p


def load_spec(args):
    """Merge --spec into the arguments: explicit flags win; relative paths resolve against --workdir."""
    spec = {}
    if args.spec:
        try:
            with open(args.spec) as f:
                spec = json.load(f)
        except (OSError, ValueError) as e:
            raise EngineError("spec_invalid", f"cannot read spec {args.spec}: {e}")
        unknown = sorted(set(spec) - SPEC_KEYS)
        if unknown:
            raise EngineError("spec_invalid", "; ".join(f"unknown spec key '{k}'" for k in unknown))
    work = args.workdir or (os.path.dirname(os.path.abspath(args.spec)) if args.spec else os.getcwd())
    if args.workdir:
        os.makedirs(work, exist_ok=True)

    def path(v):
        return v if v is None or os.path.isabs(v) else os.path.join(work, v)

    for key in ("task", "data", "val", "images", "out", "model"):
        if hasattr(args, key) and getattr(args, key) is None and key in spec:
            setattr(args, key, spec[key])
    for key in ("data", "val", "images", "out", "model"):
        if hasattr(args, key) and args.spec and getattr(args, key) is not None:
            setattr(args, key, path(getattr(args, key)))
    args.params = dict(spec.get("params") or {})
    if args.device is None:
        args.device = spec.get("device")
    sub = spec.get(args.command) or {}
    for key, value in sub.items():
        if not hasattr(args, key):
            raise EngineError("spec_invalid", f"unknown {args.command} setting '{key}'")
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.command == "train":
        args.resume = args.resume or bool(spec.get("resume"))
        args.max_seconds = args.max_seconds or spec.get("max_seconds")
        if args.out is None:
            args.out = os.path.join(work, "run")
    elif args.out is None:
        args.out = os.path.join(work, {"test": "predictions.json", "measure": "measurements.json",
                                       "analyze": "analysis.json", "tune": "tune"}.get(args.command, "model.onnx"))
    return args


def main(argv=None):
    args = build_parser().parse_args(argv)
    install_sigterm()
    launched = launched_world()
    if launched and launched[0]:
        # torchrun's other ranks train alongside rank 0, which alone speaks for the run, hears SIGTERM (torchrun
        # sends it to every rank) and tells them at the next step, so all stop on the same one
        quiet()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        args = load_spec(args)
        _threads()
        device.reset()
        device.select(args.device)
        if args.command == "train":
            from loupe_engine.commands import train
            train(args)
        elif args.command == "test":
            from loupe_engine.commands import test
            test(args)
        elif args.command == "measure":
            from loupe_engine.measure.command import measure
            measure(args)
        elif args.command == "analyze":
            from loupe_engine.analysis.command import analyze
            analyze(args)
        elif args.command == "tune":
            from loupe_engine.agent.command import tune
            tune(args)
        else:
            from loupe_engine.export import export
            export(args)
        return 0
    except Cancelled:
        emit("error", code="cancelled", message="cancelled by SIGTERM")
        log("cancelled")
        return 130
    except EngineError as e:
        emit("error", code=e.code, message=e.message)
        log("error:", e.message)
        return 2
    except KeyboardInterrupt:
        emit("error", code="cancelled", message="interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
