"""The tuner's search space per task (AGENT.md, Tuning): a few parameters that move a short training's fitness
most, each with a range around sensible values. Six dimensions at most: TPE needs about ten trials per dimension
before it beats random draws, and a budget affords a handful of trials."""

ADAM_LR = (3e-4, 1e-2)  # AdamW's steps are ~lr-sized: SGD's range would diverge at its top
SGD_LR = (1e-3, 3e-2)


def _sizes(imgsz):
    """base × {0.75, 1, 1.25}, each rounded to a multiple of 32, at least 64."""
    return sorted({max(64, int(imgsz * f / 32 + 0.5) * 32) for f in (0.75, 1.0, 1.25)})


def _lr(cfg):
    return ("lr0", "log", SGD_LR if cfg.optimizer == "SGD" else ADAM_LR)


def dimensions(task, cfg, cuda):
    """[(key, kind, values)]: kind 'cat' (values = choices), 'float' or 'log' (values = (low, high))."""
    if task == "ocr":
        return [_lr(cfg)]
    if task == "classify":
        return [_lr(cfg), ("dropout", "float", (0.0, 0.5)), ("scale", "float", (0.1, 0.9)),
                ("fliplr", "cat", (0.0, 0.5)), ("erasing", "float", (0.0, 0.5))]
    if task == "segment":
        dims = [_lr(cfg), ("scale", "float", (0.1, 0.9)), ("fliplr", "cat", (0.0, 0.5)),
                ("hsv_v", "float", (0.0, 0.6))]
        return dims + ([("mosaic", "float", (0.0, 1.0))] if not cfg.rect else [])
    # detect, obb: on CUDA n and s cost about the same time per image, on a CPU p and n are the affordable sizes
    dims = [("model", "cat", ("n", "s") if cuda else ("p", "n"))]
    if not cfg.crop:  # with tiles (crop) the image size is the data's, not a free choice
        dims.append(("imgsz", "cat", tuple(_sizes(cfg.imgsz))))
    dims += [_lr(cfg), ("scale", "float", (0.1, 0.9)), ("flipud", "cat", (0.0, 0.5))]
    if not cfg.rect:
        dims.append(("mosaic", "float", (0.0, 1.0)))
    return dims[:6]


def base_values(dims, cfg):
    """The base configuration's value of every dimension it lies in (trial 0 is enqueued with these). A value
    outside its dimension stays unsearched in trial 0: model auto, or lr0 under optimizer auto (which ignores it)."""
    out = {}
    for key, kind, values in dims:
        v = getattr(cfg, key)
        if key == "lr0" and cfg.optimizer == "auto":
            continue
        if (v in values) if kind == "cat" else values[0] <= v <= values[1]:
            out[key] = v
    return out


def suggest(trial, dims, only=None):
    """The trial's values of the dimensions (of those in `only`, when given: the enqueued base trial)."""
    params = {}
    for key, kind, values in dims:
        if only is not None and key not in only:
            continue
        if kind == "cat":
            params[key] = trial.suggest_categorical(key, list(values))
        else:
            params[key] = trial.suggest_float(key, values[0], values[1], log=kind == "log")
    return params


def implied(params, cfg):
    """Settings a searched value needs: lr0 under optimizer auto takes effect with an explicit AdamW (auto's own
    choice for short runs)."""
    return {"optimizer": "AdamW"} if "lr0" in params and cfg.optimizer == "auto" else {}
