"""What the health check reads from the pixels: each image is decoded once, then measured on a grey copy no
larger than the model sees (engine/AGENT.md, Analysis).

- digest: a hash of the decoded pixels and their shape: equal digests are identical images, whatever the file
  format or name;
- phash: 64-bit DCT perceptual hash of the grey image (32×32 area-resized, the 8×8 lowest frequencies of its
  2-D DCT, each bit set when above their median, as the common `imagehash.phash`): re-encoded, slightly noisy,
  rescaled or brightened copies stay within a few bits;
- blur: variance of the Laplacian of the grey image at most 640 px on its long side (about the scale training
  sees it at: a blur finer than that scale does not matter to the model, and big photos are compared with small
  ones at one scale);
- mean luminance (0-255) and the shares of pixels clipped dark (≤ 5) and bright (≥ 250)."""
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

from loupe_engine.events import EngineError, Progress, check_cancel

MEASURE_SIDE = 640
HASH_SIDE = 32


def measure_all(images, images_dir):
    """Decode and measure every image (threads: OpenCV releases the GIL); fills each image dict's width, height
    and measures in place. Emits `progress` (phase analyzing). Raises bad_image listing every unreadable file."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    progress = Progress("analyzing", len(images))
    bad = []
    pool = ThreadPoolExecutor(max_workers=max(1, min(cores, 8)))
    try:
        results = pool.map(lambda im: _measure(os.path.join(images_dir, im["file"])), images)
        for done, (im, m) in enumerate(zip(images, results), 1):
            check_cancel()
            if m is None:
                bad.append(im["file"])
            else:
                im.update(m)
            progress.step(done)
    finally:
        # a cancel must not wait for the images not yet read
        pool.shutdown(wait=True, cancel_futures=True)
    if bad:
        more = f" (and {len(bad) - 8} more)" if len(bad) > 8 else ""
        raise EngineError("bad_image", "; ".join(f"{f}: missing or does not decode" for f in bad[:8]) + more)


def _measure(path):
    img = cv2.imread(path, cv2.IMREAD_COLOR) if os.path.isfile(path) else None
    if img is None or img.size == 0:
        return None
    h, w = img.shape[:2]
    digest = hashlib.blake2b(img.tobytes(), digest_size=16)
    digest.update(f"{w}x{h}".encode())
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    s = min(1.0, MEASURE_SIDE / max(h, w))
    if s < 1:
        grey = cv2.resize(grey, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    return {"width": w, "height": h, "digest": digest.hexdigest(), "phash": phash(grey),
            "blur": float(cv2.Laplacian(grey, cv2.CV_64F).var()), "luma": float(grey.mean()),
            "clipDark": float(np.count_nonzero(grey <= 5) / grey.size),
            "clipBright": float(np.count_nonzero(grey >= 250) / grey.size)}


def phash(grey):
    """The 64-bit DCT hash of a grey image, as an unsigned int."""
    small = cv2.resize(grey, (HASH_SIDE, HASH_SIDE), interpolation=cv2.INTER_AREA).astype(np.float32)
    low = cv2.dct(small)[:8, :8]
    bits = (low > np.median(low)).reshape(-1)
    return int.from_bytes(np.packbits(bits).tobytes(), "big")


_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def close_pairs(hashes, max_bits, chunk=512):
    """Index arrays (i, j), i < j, of the hash pairs that differ in at most `max_bits` bits, one block of rows at a
    time, so a large dataset's n×n distance matrix is never held at once."""
    h = np.array(hashes, np.uint64)
    for start in range(0, len(h), chunk):
        rows = h[start:start + chunk, None] ^ h[None, :]
        bits = _POPCOUNT[rows.view(np.uint8)].reshape(rows.shape + (8,)).sum(-1)
        ii, jj = np.nonzero(bits <= max_bits)
        ii = ii + start
        keep = ii < jj
        yield ii[keep], jj[keep]
