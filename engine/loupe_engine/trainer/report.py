"""What every task's `train` command does around the trainer: progress callbacks, the final evaluation of
best.pt, results.json, artifact events and the `done` summary (SPEC §3 model info)."""
import json
import os

import torch

from loupe_engine import config
from loupe_engine.events import emit, log
from loupe_engine.models.detector import count_flops


def gpu_fields():
    """The GPU this process trains on, for the platform's monitor (an epoch event's `gpu`); nothing on a CPU.
    Memory is the device's (all processes on it); utilisation only where the driver's NVML answers. Only once this
    process uses CUDA: a CPU run on a GPU host neither claims the GPU nor opens a CUDA context to ask."""
    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        return {}
    i = torch.cuda.current_device()
    try:
        free, total = torch.cuda.mem_get_info(i)
    except Exception:  # noqa: BLE001 - an older driver: the figures are a nicety
        free = total = None
    try:
        util = torch.cuda.utilization(i)
    except Exception:  # noqa: BLE001 - pynvml absent
        util = None
    used = total - free if total is not None else None
    return {"gpu": {"name": torch.cuda.get_device_name(i), "util_percent": util,
                    "memory_used_bytes": used, "memory_total_bytes": total}}


def callbacks(line):
    """`line(kw)` formats an epoch for the log."""
    return {"phase": lambda phase: emit("phase", phase=phase),
            "epoch": lambda **kw: (emit("epoch", **kw, **gpu_fields()), log(line(kw)))}


def finish(args, tr, model, res, summary):
    """Complete the summary with run facts, write results.json, emit artifacts and `done`."""
    ckpt = os.path.join(args.out, "best.pt")
    res.update(param_count=sum(p.numel() for p in model.parameters()),
               model_size_mb=os.path.getsize(ckpt) / 1e6,
               gpu_memory_mb=torch.cuda.max_memory_allocated() / 1e6 if tr.device.type == "cuda" else None)
    data = args.data.rstrip("/")
    summary = {"dataset": os.path.basename(data), "task": tr.task, "total_epochs": tr.total_epochs,
               "best_epoch": tr.best_epoch, "stopped_by": tr.stop_reason, "total_time_s": round(tr.elapsed, 1),
               "train_img_per_s": tr.images_seen / max(tr.train_time, 1e-6),
               "precision": res.get("precision"), "recall": res.get("recall"), "f1": res.get("f1"),
               **summary, "best_val_loss": res.get("val_loss"), "inference_ms": res["inference_ms"],
               "fps": res["fps"], "gpu_memory_mb": res["gpu_memory_mb"], "model_size_mb": res["model_size_mb"],
               "param_count": res["param_count"], "seed": tr.seed, "train_time_s": tr.train_time,
               "train_images_seen": tr.images_seen, "train_dtype": tr.train_dtype,
               "train_gflops_per_image": count_flops(model, tr.train_size)[1]}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"summary": summary, "metrics": res, "config": config.to_dict(tr.cfg)}, f, indent=1)
    for kind, name in (("checkpoint", "best.pt"), ("checkpoint_last", "last.pt"), ("results", "results.json")):
        emit("artifact", kind=kind, path=os.path.join(args.out, name))
    emit("done", summary=summary)
    return summary
