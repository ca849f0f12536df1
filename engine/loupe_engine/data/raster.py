"""Exact polygon rasterization: a pixel belongs to a polygon when its centre lies inside (pixel (i, j) covers
[j, j+1) x [i, i+1), centre (j + 0.5, i + 0.5); crossings are half-open, so two polygons sharing an edge never
share a pixel). cv2.fillPoly also fills every pixel its edges touch, which grows shapes by about a pixel per
axis: labels drawn that way would teach the segmenter fat masks and bias every measurement."""
import math

import numpy as np


def fill_polygon(plane, parts, value=1):
    """Set `value` in the 2-D array `plane` on the pixels of a polygon (list of (k, 2) parts, continuous pixel
    coordinates; parts are united, each part filled even-odd)."""
    h, w = plane.shape
    for p in parts:
        p = np.asarray(p, np.float64).reshape(-1, 2)
        if len(p) < 3:
            continue
        y_lo, y_hi = max(0, math.ceil(p[:, 1].min() - 0.5)), min(h, math.ceil(p[:, 1].max() - 0.5))
        if y_hi <= y_lo:
            continue
        ys = np.arange(y_lo, y_hi) + 0.5
        x1, y1 = p[:, 0], p[:, 1]
        x2, y2 = np.roll(x1, -1), np.roll(y1, -1)
        yy = ys[:, None]
        cross = ((y1 <= yy) & (yy < y2)) | ((y2 <= yy) & (yy < y1))
        with np.errstate(divide="ignore", invalid="ignore"):
            xs = np.where(cross, x1 + (yy - y1) * (x2 - x1) / (y2 - y1), np.inf)
        xs.sort(1)
        n = cross.sum(1)
        rows, cols = np.nonzero(np.arange(xs.shape[1])[None, :] < n[:, None] // 2 * 2)
        starts = np.clip(np.ceil(xs[rows[0::2], cols[0::2]] - 0.5), 0, w).astype(np.int64)
        ends = np.clip(np.ceil(xs[rows[1::2], cols[1::2]] - 0.5), 0, w).astype(np.int64)
        r = rows[0::2]
        diff = np.zeros((len(ys), w + 1), np.int32)
        np.add.at(diff, (r, starts), 1)
        np.add.at(diff, (r, ends), -1)
        inside = np.cumsum(diff[:, :w], 1) > 0
        plane[y_lo:y_hi][inside] = value
    return plane
