"""The zero-shot OCR baseline: Tesseract reads drawn clean lines, scored by the recognizer's own TextMetrics;
without a tesseract binary on PATH it is None (the real lookup, PATH emptied: nothing of ours is mocked)."""
import os
import shutil

import cv2
import numpy as np
import pytest

from loupe_engine.ocr.baseline import read_baseline
from loupe_engine.ocr.text import TextMetrics

TEXTS = ["AB 1234", "KX7 92QP", "ROAD 58", "MZ 40 TT", "HELLO 316", "QR 8805", "VW 2219", "PLATE 77"]


def drawn_line(text, seed):
    """A plate-like crop: dark text on a light, slightly uneven background with a little context around it."""
    rng = np.random.default_rng(seed)
    face = cv2.FONT_HERSHEY_SIMPLEX if seed % 2 == 0 else cv2.FONT_HERSHEY_DUPLEX
    scale, thick = 1.0 + 0.2 * (seed % 3), 2
    (tw, th), base = cv2.getTextSize(text, face, scale, thick)
    h, w = th + base + 24, tw + 24
    bg = int(rng.integers(200, 250))
    img = np.full((h, w, 3), bg, np.uint8)
    cv2.putText(img, text, (12, 12 + th), face, scale, (20, 20, 20), thick, cv2.LINE_AA)
    noise = rng.normal(0, 4, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None,
                                     reason="tesseract-ocr is not installed (scripts/bootstrap.sh installs it)")


@needs_tesseract
def test_tesseract_reads_drawn_lines_scored_like_the_recognizer():
    crops = [drawn_line(t, i) for i, t in enumerate(TEXTS)]
    r = read_baseline(crops, TEXTS)
    assert r is not None and r["reader"].startswith("tesseract ")
    assert r["n"] == len(TEXTS)
    # Clean drawn text is easy for Tesseract: a floor far above what an empty or garbled reader gets (0.0).
    assert r["char_acc"] >= 0.8, r
    assert r["line_acc"] >= 0.5, r
    # Blank crops read as nothing (or a stray guess): near 0, as TextMetrics scores '' against every truth.
    blank = [np.full((40, 160, 3), 230, np.uint8) for _ in TEXTS]
    rb = read_baseline(blank, TEXTS)
    m = TextMetrics()
    for t in TEXTS:
        m.update("", t)
    assert m.compute()["char_acc"] == 0.0
    assert rb["char_acc"] <= 0.1 and rb["line_acc"] == 0.0, rb
    # Mixed: the clean half reads, the blank half does not; an empty crop counts as '' and does not raise.
    mixed = crops[:4] + blank[4:7] + [np.zeros((0, 0, 3), np.uint8)]
    rm = read_baseline(mixed, TEXTS)
    assert 0.3 <= rm["char_acc"] <= 0.6, rm


def test_no_tesseract_binary_gives_none(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: shutil.which finds no tesseract
    assert read_baseline([drawn_line("AB 12", 0)], ["AB 12"]) is None
    assert os.environ["PATH"] == str(tmp_path)
