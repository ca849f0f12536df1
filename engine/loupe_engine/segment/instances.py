"""From per-pixel probabilities to objects: upsample to the original image, pick each pixel's class
(overlap_mask=true: argmax; false: every class whose probability reaches conf), split each class into connected
components (8-connectivity) and describe each: class, score (mean probability over its pixels), box, pixel area,
polygon or RLE, and its measurements. Touching parts of one class become one instance: the segmenter is semantic."""
import cv2
import numpy as np

from loupe_engine.measure.fields import measure_mask, rounded


def upsample(probs, width, height):
    """(C, h, w) tensor of the image area at model resolution -> list of C float32 planes at width x height."""
    p = probs.float().cpu().numpy()
    return [cv2.resize(c, (width, height), interpolation=cv2.INTER_LINEAR) for c in p]


def class_masks(planes, overlap, conf=0.5):
    """[(class index, binary mask, probability plane)] per class with any pixel."""
    out = []
    if overlap:
        best = np.argmax(np.stack(planes), 0)
        for c in range(1, len(planes)):
            m = best == c
            if m.any():
                out.append((c - 1, m, planes[c]))
    else:
        for c, p in enumerate(planes):
            m = p >= conf
            if m.any():
                out.append((c, m, p))
    return out


def instances(planes, overlap, conf=0.5, min_area=4, scale=None):
    """Objects of one image: dicts with cls, score, bbox [x, y, w, h], area, mask (cropped to the box), offset
    and measure (engine/README.md fields; `scale` mm per pixel)."""
    objs = []
    for c, m, p in class_masks(planes, overlap, conf):
        n, comp, stats, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
        for k in range(1, n):
            x, y, w, h, area = (int(v) for v in stats[k])
            if area < min_area:
                continue
            crop = comp[y:y + h, x:x + w] == k
            objs.append({"cls": c, "score": float(p[y:y + h, x:x + w][crop].mean()), "bbox": [x, y, w, h],
                         "area": area, "mask": crop, "offset": (x, y),
                         "measure": rounded(measure_mask(crop, (x, y), scale))})
    return sorted(objs, key=lambda o: -o["score"])


def polygons(obj, min_points=3):
    """Outer contours as COCO polygons through the centres of the boundary pixels (holes are not kept; use RLE
    for exact masks)."""
    cs, _ = cv2.findContours(obj["mask"].astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    x, y = obj["offset"]
    out = []
    for c in cs:
        c = c.reshape(-1, 2).astype(np.float64) + [x + 0.5, y + 0.5]
        if len(c) >= min_points:
            out.append([round(float(v), 2) for v in c.reshape(-1)])
    return out


def rle(obj, width, height):
    """Uncompressed COCO RLE of the object's mask in the full image: column-major run lengths, starting with
    background."""
    full = np.zeros((height, width), np.uint8)
    x, y = obj["offset"]
    h, w = obj["mask"].shape
    full[y:y + h, x:x + w] = obj["mask"]
    flat = full.T.reshape(-1)
    change = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate([[0], change, [flat.size]])
    counts = np.diff(bounds).tolist()
    if flat[0]:
        counts = [0] + counts
    return {"size": [height, width], "counts": counts}


def rle_decode(r):
    """Inverse of rle(): the (h, w) mask."""
    h, w = r["size"]
    vals = np.zeros(sum(r["counts"]), np.uint8)
    pos = 0
    for k, n in enumerate(r["counts"]):
        if k % 2:
            vals[pos:pos + n] = 1
        pos += n
    return vals.reshape(w, h).T
