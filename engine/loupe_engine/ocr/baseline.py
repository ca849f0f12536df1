"""Zero-shot baseline for OCR: Tesseract (Debian's tesseract-ocr, untrained on the user's data) reads the same
validation crops as the trained recognizer, scored by the same TextMetrics, so /model can say whether training
beat a reader that needs no labels.

Fair to the baseline: one line per crop (--psm 7), characters restricted to the charset of the truths (a
whitelist, as the recognizer only knows its charset), crops shorter than MIN_HEIGHT px scaled up (Tesseract reads
text of 20-30 px x-height best). All crops go through one tesseract process (a list file of our own temp PNGs,
no shell); its text output separates pages with a form feed. Without a tesseract binary on PATH the baseline is
None: it is optional and never fails a training."""
import os
import shutil
import subprocess
import tempfile

import cv2
import numpy as np

from loupe_engine.ocr.text import TextMetrics, normalise

MIN_HEIGHT = 48          # px: shorter crops are scaled up (aspect kept) before reading
CHUNK = 256              # crops per tesseract process
TIMEOUT_PER_CROP = 2.0   # s, plus TIMEOUT_BASE per process; a process past it reads its crops as ''
TIMEOUT_BASE = 20.0


def tesseract_version(binary):
    """'tesseract 5.3.0' from `tesseract --version`, or None when it does not run."""
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    for line in (out.stdout + "\n" + out.stderr).splitlines():
        if line.lower().startswith("tesseract"):
            return line.strip()
    return None


def _prepare(crop):
    """RGB uint8 crop -> grayscale image for Tesseract, or None when it is empty."""
    a = np.asarray(crop)
    if a.ndim < 2 or a.shape[0] < 2 or a.shape[1] < 2:
        return None
    a = a.astype(np.uint8, copy=False)
    g = cv2.cvtColor(a, cv2.COLOR_RGB2GRAY) if a.ndim == 3 and a.shape[2] == 3 else a if a.ndim == 2 else a[..., 0]
    h, w = g.shape
    if h < MIN_HEIGHT:
        s = MIN_HEIGHT / h
        g = cv2.resize(g, (max(2, round(w * s)), MIN_HEIGHT), interpolation=cv2.INTER_CUBIC)
    return g


def _run(binary, paths, whitelist, env):
    """Reads of a list of PNG paths through one tesseract process, or None when its output does not split into
    one text per page (the caller then reads them one by one)."""
    with tempfile.TemporaryDirectory(prefix="loupe-tess-") as tmp:
        listfile = os.path.join(tmp, "list.txt")
        with open(listfile, "w", encoding="utf-8") as f:
            f.write("\n".join(paths) + "\n")
        args = [binary, listfile, "stdout", "--psm", "7", "--dpi", "300", "-c", "page_separator=\f"]
        if whitelist:
            args += ["-c", "tessedit_char_whitelist=" + whitelist]
        try:
            out = subprocess.run(args, capture_output=True, timeout=TIMEOUT_BASE + TIMEOUT_PER_CROP * len(paths),
                                 env=env, cwd=tmp)
        except (OSError, subprocess.SubprocessError):
            return [""] * len(paths) if len(paths) == 1 else None
    pages = out.stdout.decode("utf-8", "replace").split("\f")
    if len(pages) != len(paths):
        return [""] * len(paths) if len(paths) == 1 else None
    return [normalise(p) for p in pages]


def read_baseline(crops, truths):
    """crops: RGB uint8 arrays (one labelled text line each, cut upright), truths: their label texts.
    -> {"reader": "tesseract 5.3.0", "char_acc", "line_acc", "n"} scored exactly like the trained recognizer
    (TextMetrics; a crop that fails to read counts as ''), or None when no tesseract binary is found."""
    binary = shutil.which("tesseract")
    if binary is None:
        return None
    version = tesseract_version(binary)
    if version is None:
        return None
    truths = [normalise(t) for t in truths]
    crops = list(crops)
    if len(crops) != len(truths):
        raise ValueError(f"{len(crops)} crops for {len(truths)} truths")
    whitelist = "".join(sorted({c for t in truths for c in t}))
    env = dict(os.environ, OMP_THREAD_LIMIT="1")  # one thread: it runs beside a training on a few cores
    reads = [""] * len(crops)
    with tempfile.TemporaryDirectory(prefix="loupe-tess-img-") as tmp:
        jobs = []
        for i, c in enumerate(crops):
            g = _prepare(c)
            if g is None:
                continue
            path = os.path.join(tmp, f"{i}.png")
            if cv2.imwrite(path, g):
                jobs.append((i, path))
        for s in range(0, len(jobs), CHUNK):
            chunk = jobs[s:s + CHUNK]
            got = _run(binary, [p for _, p in chunk], whitelist, env)
            if got is None:  # output did not split per page: read this chunk one crop per process
                got = [_run(binary, [p], whitelist, env)[0] for _, p in chunk]
            for (i, _), text in zip(chunk, got):
                reads[i] = text
    m = TextMetrics()
    for pred, truth in zip(reads, truths):
        m.update(pred, truth)
    r = m.compute()
    return {"reader": version, "char_acc": float(r["char_acc"]), "line_acc": float(r["line_acc"]), "n": len(truths)}
