"""The one default training config. Every key has a type, a range and a one-line comment.

Keys use the short names users know from other trainers (imgsz, epochs, lr0, mosaic, hsv_h ...).
`validate(overrides)` rejects unknown keys and bad values with one message per problem (SPEC §5),
and warns about (then corrects) harmless conflicts.
"""
from dataclasses import dataclass, field, fields, asdict

from loupe_engine.events import EngineError, log


def P(default, help, lo=None, hi=None, choices=None, kind=None):
    return field(default=default, metadata={"help": help, "lo": lo, "hi": hi, "choices": choices, "kind": kind})


@dataclass
class TrainConfig:
    # --- model and run
    model: str = P("auto", "model size: p (pico, CPU budgets), n (fast), s, m (most accurate); auto = n on CUDA, "
                   "on a CPU n when the time budget affords it 15 epochs, else p (README: defaults by hardware)",
                   choices=("auto", "p", "n", "s", "m"))
    imgsz: int = P(640, "inference image size in px (long side); a multiple of 32", 32, 4096, kind="mult32")
    crop: int = P(0, "train on random full-resolution tiles of this size (0 = whole image); a multiple of 32",
                  0, 4096, kind="mult32or0")
    batch: int = P(-1, "batch size; -1 = automatic (at most 8 below 300 training images, 2 above 1280 px)", -1, 1024,
                   kind="batch")
    epochs: int = P(100, "training epochs", 1, 10000)
    time: float = P(0.0, "max training time in hours: 0 = no limit, else 1 to 72", 0.0, 72.0, kind="hours")
    patience: int = P(50, "stop after this many epochs without improvement (0 = never)", 0, 10000)
    agent_early_stop: int = P(5, "the agent's tuning ends after this many trials without gain (0 = only its budget "
                                 "ends it); a boolean, as stored before the agent existed, reads as 5 or 0", 0, 100,
                              kind="trials")
    pretrained: str = P("", "path of a Loupe checkpoint to start from ('' = from scratch; no download exists)")
    freeze: int = P(0, "freeze the first N backbone layers", 0, 10)
    dropout: float = P(0.0, "dropout before the classification output", 0.0, 1.0)
    seed: int = P(0, "random seed; 0 = random", 0, 2 ** 31 - 1)
    overlap_mask: bool = P(True, "segment: overlapping polygons share one class map, the smaller on top "
                                 "(false: an independent mask per class)")
    workers: int = P(0, "data-loading worker processes (0 = in the training process); not set: 0 on a CPU, "
                        "min(8, cores per process) on CUDA", 0, 64)
    procs: int = P(0, "CPU training processes, one core each, gradients averaged (0 = one per core when every one "
                      "sees 1,000 training images over the epochs and gets a batch of 4; 1 = one process on all "
                      "cores)", 0, 64)
    close_mosaic: int = P(10, "turn mosaic/mixup/cutmix off for the last N epochs", 0, 10000)
    amp: bool = P(True, "mixed precision: float16 on CUDA, bfloat16 on a CPU with AMX; elsewhere ignored with a note")
    deterministic: bool = P(False, "deterministic algorithms (slower)")
    cache: bool = P(False, "keep decoded images in RAM")
    rect: bool = P(False, "rectangular (aspect-preserving) batches instead of square images, no mosaic")
    single_cls: bool = P(False, "treat every category as one class")
    balance: bool = P(False, "class-balanced sampling: images of rare classes are drawn more often")
    multi_scale: bool = P(False, "vary the training size +-50% per batch")
    fraction: float = P(1.0, "share of the training images used (1.0 = all)", 0.01, 1.0)
    profile: bool = P(False, "log time spent in data, forward/backward and validation")
    val: bool = P(True, "validate every epoch (best.pt and patience need it)")
    # --- augmentation (probabilities and gains, 0 to 1 unless said)
    hsv_h: float = P(0.015, "hue gain", 0.0, 1.0)
    hsv_s: float = P(0.7, "saturation gain", 0.0, 1.0)
    hsv_v: float = P(0.4, "value gain", 0.0, 1.0)
    degrees: float = P(0.0, "rotation +- degrees", 0.0, 180.0)
    translate: float = P(0.1, "translation +- fraction", 0.0, 1.0)
    scale: float = P(0.5, "scale +- gain", 0.0, 1.0)
    shear: float = P(0.0, "shear +- degrees", 0.0, 90.0)
    perspective: float = P(0.0, "perspective +- fraction", 0.0, 0.001)
    flipud: float = P(0.0, "vertical flip probability", 0.0, 1.0)
    fliplr: float = P(0.5, "horizontal flip probability", 0.0, 1.0)
    transpose: float = P(0.0, "transpose probability (x and y swapped; with both flips, every 90-degree turn)", 0.0, 1.0)
    bgr: float = P(0.0, "channel swap RGB<->BGR probability", 0.0, 1.0)
    mosaic: float = P(1.0, "4-image mosaic probability", 0.0, 1.0)
    mixup: float = P(0.0, "mixup probability", 0.0, 1.0)
    cutmix: float = P(0.0, "CutMix probability", 0.0, 1.0)
    copy_paste: float = P(0.0, "copy-paste (mirrored objects) probability", 0.0, 1.0)
    erasing: float = P(0.0, "random erasing probability", 0.0, 1.0)
    auto_augment: float = P(0.0, "probability of one random photometric auto-augment op", 0.0, 1.0)
    # --- learning
    optimizer: str = P("auto", "optimizer", choices=("auto", "SGD", "Adam", "AdamW"))
    lr0: float = P(0.01, "initial learning rate (auto optimizer picks its own)", 1e-6, 1.0)
    lrf: float = P(0.01, "final learning rate as a fraction of lr0", 1e-4, 1.0)
    scheduler: str = P("linear", "learning-rate schedule", choices=("linear", "cosine"))
    cos_lr: bool = P(False, "cosine schedule (same as scheduler=cosine)")
    momentum: float = P(0.937, "SGD momentum / Adam beta1", 0.0, 1.0)
    weight_decay: float = P(0.0005, "weight decay", 0.0, 0.1)
    warmup_epochs: float = P(3.0, "warm-up epochs (fractions allowed)", 0.0, 100.0)
    warmup_momentum: float = P(0.8, "momentum at the start of warm-up", 0.0, 1.0)
    warmup_bias_lr: float = P(0.1, "bias learning rate at the start of warm-up", 0.0, 1.0)
    # --- loss weights
    box: float = P(7.5, "box (IoU) loss weight", 0.0, 100.0)
    cls: float = P(0.5, "classification loss weight", 0.0, 100.0)
    obj: float = P(1.0, "weight of the background (objectness) part of the classification loss", 0.0, 100.0)
    dfl: float = P(1.5, "distribution focal loss weight", 0.0, 100.0)
    pose: float = P(12.0, "keypoint loss weight (no task trains keypoints: accepted, does nothing, not in the form)",
                    0.0, 100.0)


def describe():
    """Rows (key, default, range, comment) for the README and `--help-config`."""
    rows = []
    for f in fields(TrainConfig):
        m = f.metadata
        rng = "|".join(m["choices"]) if m["choices"] else (f"{m['lo']}..{m['hi']}" if m["lo"] is not None else "")
        rows.append((f.name, f.default, rng, m["help"]))
    return rows


def _coerce(f, value):
    t = f.type if isinstance(f.type, type) else {"int": int, "float": float, "str": str, "bool": bool}[f.type]
    if f.metadata.get("kind") == "trials" and isinstance(value, bool):
        return 5 if value else 0
    if t is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
        raise ValueError("must be true or false")
    if t is int:
        if isinstance(value, bool):
            raise ValueError("must be an integer")
        if isinstance(value, str):
            value = float(value)
        if float(value) != int(value):
            raise ValueError("must be an integer")
        return int(value)
    if t is float:
        if isinstance(value, bool):
            raise ValueError("must be a number")
        return float(value)
    return "" if value is None else str(value)


def validate(overrides):
    """Return a TrainConfig with `overrides` applied, or raise EngineError listing every problem."""
    cfg = TrainConfig()
    known = {f.name: f for f in fields(TrainConfig)}
    problems = []
    for key, value in (overrides or {}).items():
        f = known.get(key)
        if f is None:
            problems.append(f"unknown parameter '{key}'")
            continue
        m = f.metadata
        if key == "cache" and isinstance(value, str) and value.lower() in ("ram", "disk"):
            value = True
        if key == "batch" and isinstance(value, str) and value.lower() == "auto":
            value = -1
        try:
            v = _coerce(f, value)
        except (ValueError, TypeError) as e:
            problems.append(f"{key}={value!r}: {e}")
            continue
        if m["choices"] and v not in m["choices"]:
            problems.append(f"{key}={v!r}: must be one of {', '.join(m['choices'])}")
            continue
        if m["lo"] is not None and not (m["lo"] <= v <= m["hi"]):
            problems.append(f"{key}={v}: must be between {m['lo']} and {m['hi']}")
            continue
        kind = m["kind"]
        if kind == "mult32" and v % 32:
            problems.append(f"{key}={v}: must be a multiple of 32 (e.g. {max(32, round(v / 32) * 32)})")
            continue
        if kind == "mult32or0" and v % 32:
            problems.append(f"{key}={v}: must be 0 or a multiple of 32")
            continue
        if kind == "hours" and 0 < v < 1:
            problems.append(f"{key}={v}: max training time is 0 (no limit) or 1 to 72 hours")
            continue
        if kind == "batch" and v == 0:
            problems.append("batch=0: use -1 (automatic) or a positive size")
            continue
        setattr(cfg, key, v)
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    # the keys the user gave (not a field: checkpoints keep to_dict's fields): a default that depends on the
    # hardware (workers on CUDA, BaseTrainer.loader_kw) applies only where the user left the key unset
    cfg.given = frozenset(overrides or {})
    # harmless conflicts: warn and correct
    if cfg.cos_lr and cfg.scheduler != "cosine":
        log("note: cos_lr=true overrides scheduler=linear; using cosine")
        cfg.scheduler = "cosine"
    if cfg.crop and cfg.crop >= cfg.imgsz:
        log(f"note: crop={cfg.crop} is not smaller than imgsz={cfg.imgsz}; training on whole images")
        cfg.crop = 0
    if cfg.rect and cfg.mosaic > 0:
        log("note: rect=true and mosaic do not mix; mosaic turned off")
        cfg.mosaic = 0.0
    return cfg


# model=auto (engine/README.md, "Defaults by hardware and budget"). Training images/s of p and n per task at the
# task's default image side (segment: the 256 px its automatic size chose for the 256 px drawn parts), measured in
# float32 on the development machine's AMD EPYC (2 cores, no AMX, one process per core) with 80-100 s runs of the
# engine CLI while two other engineers' trainings shared the cores (load average 3.5-8): medians of the epochs,
# about half an idle machine's speed (the detector's p 6.0-7.2 and n 2.70 at load 2-4, BENCHMARKS-FEW.md), so the
# rule errs toward p. Only n's figure decides; p's is the table's comparison.
FLOAT32_SPEED = {"detect": (640, 3.4, 1.5), "obb": (640, 2.35, 1.07), "classify": (640, 4.3, 3.4),
                 "segment": (256, 12.0, 8.5), "ocr": (640, 2.7, 1.84)}
# bfloat16 (AMX with amp) was measured for the detector only, on the AMX Xeon of BENCHMARKS-CPU.md (n 8.7-9.5
# images/s at 704 px, runs 36-38; 10.7 at 640 px by the rule below): AMX_N_GAIN times the detector's n above. Every
# task's n is taken to gain as much (not measured: there is no AMX CPU here now).
FIXED_PX2 = 80_000  # a training image of side S costs FIXED_PX2 + S*S (server estimate.ts sizeScale: same rule)
AMX_N_GAIN = 9.1 * (FIXED_PX2 + 704 ** 2) / (FIXED_PX2 + 640 ** 2) / FLOAT32_SPEED["detect"][2]
SPEED_CORES = 2
# n needs this many epochs to beat p: on the AMX Xeon n's 15-17 epochs in 30 minutes scored DeepPCB one-view mAP50
# 0.957-0.960 where p's 19-29 had scored 0.930-0.946 (BENCHMARKS-CPU.md runs 28-38); below it, p's extra epochs
# are worth more (the segmenter: 3 epochs of n in 20 minutes learned nothing).
MIN_EPOCHS_N = 15


def auto_model(cuda, cpu_bf16, task="detect", budget_s=None, images=None, imgsz=640, epochs=100,
               cores=SPEED_CORES):
    """The size `model=auto` trains and why: (size, reason).

    On CUDA n (a GPU runs n's convolutions at little more than p's cost; s and m are never chosen automatically:
    their gain was not measured on any hardware here). On a CPU: n when the run can give n at least MIN_EPOCHS_N
    epochs, else p (pico). n's epochs = min(epochs, budget_s x n's images/s / images), n's images/s from the
    task's measured float32 figure (FLOAT32_SPEED; times AMX_N_GAIN on a CPU that trains in bfloat16: AMX with
    amp) scaled to this image side (FIXED_PX2 + side^2) and core count; without a budget or a dataset size,
    `epochs` alone. So on a CPU without AMX, where n costs 1.3-3x p per image in float32, a small budget or a
    large dataset keeps p; a long budget (or a small dataset) affords n's epochs; on AMX n comes sooner."""
    if cuda:
        return "n", "CUDA"
    kind = "bfloat16 (AMX)" if cpu_bf16 else "float32 (no AMX)"
    side, _, n_speed = FLOAT32_SPEED.get(task, FLOAT32_SPEED["detect"])
    scale = (FIXED_PX2 + side ** 2) / (FIXED_PX2 + imgsz ** 2) * max(cores, 1) / SPEED_CORES
    n_rate = n_speed * scale * (AMX_N_GAIN if cpu_bf16 else 1.0)
    if budget_s and images:
        n_epochs = min(epochs, budget_s * n_rate / images)
        basis = (f"{budget_s:.0f} s x ~{n_rate:.1f} images/s for n / {images} images = {n_epochs:.1f} epochs "
                 f"(of {epochs})")
    else:
        n_epochs = epochs
        basis = f"no time limit: {epochs} epochs"
    size = "n" if n_epochs >= MIN_EPOCHS_N else "p"
    rel = ">=" if size == "n" else "<"
    return size, (f"{task} on a CPU training in {kind}, {imgsz} px, {max(cores, 1)} cores: {basis} {rel} "
                  f"{MIN_EPOCHS_N}")


def parse_set(items):
    """`--set key=value` pairs to a dict (values stay strings; validate() coerces them)."""
    out, problems = {}, []
    for item in items or []:
        if "=" not in item:
            problems.append(f"--set {item!r}: expected key=value")
            continue
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    return out


def to_dict(cfg):
    return asdict(cfg)
