"""Accuracy and speed of the engine's measurement fields on exactly known shapes: random rotated rectangles and
discs drawn as pixel-centre masks (independent of the engine's rasterizer), measured with measure_mask; polygons
with measure_polygon. Prints one JSON object. Usage: measure-accuracy.py [N]"""
import json
import math
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/engine")
from loupe_engine.measure.fields import measure_mask, measure_polygon  # noqa: E402

n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
rng = np.random.RandomState(0)
S = 320
ys, xs = np.mgrid[0:S, 0:S] + 0.5
err = {"rect_major": [], "rect_minor": [], "rect_angle": [], "rect_area_pct": [], "disc_diameter": [],
       "disc_area_pct": [], "centroid": [], "poly_major": []}
masks, t_measure = [], 0.0
for k in range(n):
    cx, cy = rng.uniform(140, 180, 2)
    if k % 2 == 0:
        L = rng.uniform(20, 200)
        W = rng.uniform(8, L / 1.3)
        a = rng.uniform(0, 180)
        t = math.radians(a)
        u = (xs - cx) * math.cos(t) + (ys - cy) * math.sin(t)
        v = -(xs - cx) * math.sin(t) + (ys - cy) * math.cos(t)
        m = ((np.abs(u) < L / 2) & (np.abs(v) < W / 2)).astype(np.uint8)
        t0 = time.perf_counter()
        f = measure_mask(m)
        t_measure += time.perf_counter() - t0
        err["rect_major"].append(f["major_axis"] - L)
        err["rect_minor"].append(f["minor_axis"] - W)
        err["rect_angle"].append(abs((f["angle"] - a + 90) % 180 - 90))
        err["rect_area_pct"].append(100 * (f["area"] - L * W) / (L * W))
        corners = np.array([[-L, -W], [L, -W], [L, W], [-L, W]]) / 2
        R = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        p = measure_polygon([corners @ R.T + [cx, cy]])
        err["poly_major"].append(p["major_axis"] - L)
    else:
        r = rng.uniform(5, 100)
        m = (((xs - cx) ** 2 + (ys - cy) ** 2) < r * r).astype(np.uint8)
        t0 = time.perf_counter()
        f = measure_mask(m)
        t_measure += time.perf_counter() - t0
        err["disc_diameter"] += [f["major_axis"] - 2 * r, f["minor_axis"] - 2 * r]
        err["disc_area_pct"].append(100 * (f["area"] - math.pi * r * r) / (math.pi * r * r))
    err["centroid"].append(math.hypot(f["centroid_x"] - cx, f["centroid_y"] - cy))
out = {"objects": n, "objects_per_s": n / t_measure}
for key, v in err.items():
    v = np.array(v)
    out[key] = {"mean": float(v.mean()), "mean_abs": float(np.abs(v).mean()), "max_abs": float(np.abs(v).max())}
print(json.dumps(out))
