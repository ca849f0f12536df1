"""Which package runs each task's train/test/export (detect and obb stay in commands.py and export.py), and the
training parameters that do not apply to a task: accepted, and named in a note when set explicitly."""
import importlib

from loupe_engine import config
from loupe_engine.events import log
from loupe_engine.models.load import read_checkpoint

RUNNERS = {"classify": "loupe_engine.classify.run", "segment": "loupe_engine.segment.run",
           "ocr": "loupe_engine.ocr.run"}
_LOSS = {"box", "obj", "dfl", "pose"}
IGNORED = {
    "classify": {"crop", "rect", "mosaic", "copy_paste", "overlap_mask", "single_cls", "cls"} | _LOSS,
    "segment": {"rect", "mixup", "cls"} | _LOSS,
    "ocr": {"overlap_mask", "pose"},  # the detector part trains as obb; the recognizer's settings: README, OCR
}


def runner(task):
    return importlib.import_module(RUNNERS[task]) if task in RUNNERS else None


def runner_for_checkpoint(path):
    """The task runner of a checkpoint, or None (detection, or a file the detection path will report on)."""
    try:
        ck = read_checkpoint(path, "cpu")
    except Exception:  # not a checkpoint, or one that holds more than weights: load_checkpoint says which
        return None
    return runner(ck.get("task")) if isinstance(ck, dict) else None


def apply_task_rules(task, cfg, overrides):
    """Name the explicitly set parameters the task ignores, and put every ignored key back to its default so the
    run's config (results.json) shows what was used; a correction an ignored key caused (rect turning mosaic
    off) is undone."""
    ignored = IGNORED.get(task, set())
    unused = sorted(k for k in overrides if k in ignored)
    if unused:
        log(f"note: {', '.join(unused)} do(es) not apply to {task} and are ignored (engine/README.md)")
    defaults = config.TrainConfig()
    for k in ignored:
        setattr(cfg, k, getattr(defaults, k))
    if "rect" in ignored and "mosaic" not in ignored:
        cfg.mosaic = float(overrides.get("mosaic", defaults.mosaic))
    return cfg
