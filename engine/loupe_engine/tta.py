"""Test-time augmentation: the model sees the image in several views (flips, and 90-degree turns by
transposing). For detectors each view's per-anchor output is mapped back onto the original image's anchor grid,
and boxes and class scores are averaged anchor by anchor before thresholds and NMS. A rotated box is averaged as
its centre and its shape matrix R diag(w, h) R^T, which a mirror or a transpose maps without angles and which is
the same for every way of writing the box (theta and theta + pi, or w and h swapped with a quarter turn): angles
themselves do not average.
Averaging aligned anchors (not pooling every view's boxes into one NMS) lets agreeing views reinforce a detection
and lets a detection that only one view sees fade; on DeepPCB it also tightened boxes (engine/BENCHMARKS.md).
A classifier's views average its class probabilities; a segmenter's views are mapped back pixel by pixel and
average its per-pixel probabilities.

The same code runs in evaluation and inside the exported ONNX graph, so the SDK returns the engine's results (the
detector's graph without NMS, for OpenCV, leaves the views to the Python SDK, which repeats this in numpy; the
classifier's and the segmenter's graphs make their flips out of products OpenCV loads). Each view costs one
forward pass. Views are (flip x, flip y, transpose) as applied to the input; the grid of every pyramid level maps
exactly because input sides are multiples of the largest stride."""
import math

import numpy as np
import torch

from loupe_engine.events import EngineError, log
from loupe_engine.models.detector import decode

VIEWS = {
    "off": ((0, 0, 0),),
    "hflip": ((0, 0, 0), (1, 0, 0)),
    "flips": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)),
    "dihedral": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)),
}
MODES = tuple(VIEWS)


TASKS = ("detect", "obb", "classify", "segment")


def check_mode(mode, task):
    """The mode to use ('off' when None); EngineError for an unknown mode or a task without it."""
    mode = mode or "off"
    if mode not in VIEWS:
        raise EngineError("invalid_parameters", f"tta={mode!r}: must be one of {', '.join(MODES)}")
    if mode != "off" and task not in TASKS:
        raise EngineError("invalid_parameters", f"tta={mode}: test-time augmentation is available for "
                                                f"boxes (detect, obb), classes (classify) and masks (segment), "
                                                f"not for {task}")
    return mode


def graph_mode(mode, w, h, then):
    """The views a graph of one w x h input runs: `mode`, or the 4 flips of dihedral when the input is not square
    (a transposed view would need another input size), said in the log with `then`, what becomes of them."""
    if mode == "dihedral" and w != h:
        log(f"note: tta=dihedral needs a square input to run transposed views in this graph ({w}x{h}); {then}")
        return "flips"
    return mode


def anti_identity(n):
    """The n x n matrix that reverses a row it multiplies (x @ J): a flip OpenCV's DNN module loads."""
    return torch.from_numpy(np.eye(n, dtype=np.float32)[::-1].copy())


def _mirror(x, dim, anti):
    """x reversed along its last (-1) or second-to-last (-2) axis. With `anti` (the anti_identity of x's width and
    of its height) as a product, for ONNX graphs that OpenCV's DNN module loads: it cannot load torch.flip's
    negative-step Slice nor a Gather of many indices, a MatMul by a graph input or weight it can. Exact: each output
    is one input times 1 plus zeros."""
    if anti is None:
        return x.flip(dim)
    return x @ anti[0] if dim == -1 else (x.transpose(-1, -2) @ anti[1]).transpose(-1, -2)


def _views(x, mode, anti=None):
    """The mode's views of x, in VIEWS order. Parts views share (a transpose, a mirror) are made once: 6 flips
    for dihedral's 8 views instead of 8, which counts where each flip is a product (`anti`)."""
    parts = {}

    def part(tr, fx):
        if (tr, fx) not in parts:
            parts[tr, fx] = _mirror(part(tr, 0), -1, anti) if fx else (x.transpose(-1, -2) if tr else x)
        return parts[tr, fx]

    return [_mirror(part(tr, fx), -2, anti) if fy else part(tr, fx) for fx, fy, tr in VIEWS[mode]]


def _unview_pixels(y, fx, fy, tr, anti=None):
    """A view's per-pixel output -> the original image's pixels: the view's transpose, x and y flips undone in
    reverse order."""
    if fy:
        y = _mirror(y, -2, anti)
    if fx:
        y = _mirror(y, -1, anti)
    return y.transpose(-1, -2) if tr else y


def _unview_boxes(b, w, h, fx, fy, tr):
    """xyxy boxes in the view's pixels (view size w x h) -> the original image's pixels."""
    x1, y1, x2, y2 = b.unbind(-1)
    if fx:
        x1, x2 = w - x2, w - x1
    if fy:
        y1, y2 = h - y2, h - y1
    if tr:
        x1, y1, x2, y2 = y1, x1, y2, x2
    return torch.stack([x1, y1, x2, y2], -1)


def rbox_shape(b):
    """(..., 5) cx, cy, w, h, theta -> (..., 5) cx, cy and the shape matrix R diag(w, h) R^T as (a, b, c), its
    [[a, b], [b, c]]: w along theta's direction, h across it."""
    cx, cy, w, h, t = b.unbind(-1)
    cos, sin = torch.cos(t), torch.sin(t)
    return torch.stack([cx, cy, w * cos * cos + h * sin * sin, (w - h) * sin * cos, w * sin * sin + h * cos * cos],
                       -1)


def shape_rbox(s):
    """rbox_shape's inverse: w is the larger eigenvalue, along theta in the detector's range [-pi/4, 3pi/4)."""
    cx, cy, a, b, c = s.unbind(-1)
    mid, half = (a + c) / 2, torch.sqrt(((a - c) / 2) ** 2 + b * b)
    # theta = atan2(2b, a - c) / 2 = atan(b / (half + (a - c) / 2)), in (-pi/2, pi/2]; pi/2 where that divides by
    # zero (b = 0, a <= c). ONNX export (opset 17, torch 1.13) has no atan2.
    den = half + (a - c) / 2
    t = torch.where(den > 0, torch.atan(b / den.clamp(min=1e-30)), torch.full_like(den, math.pi / 2))
    t = torch.where(t < -math.pi / 4, t + math.pi, t)
    return torch.stack([cx, cy, mid + half, mid - half, t], -1)


def _unview_shapes(s, w, h, fx, fy, tr):
    """rbox_shape rows in the view's pixels (view size w x h) -> the original image's pixels: a mirror moves the
    centre and negates b, a transpose swaps x with y and a with c."""
    cx, cy, a, b, c = s.unbind(-1)
    if fx:
        cx, b = w - cx, -b
    if fy:
        cy, b = h - cy, -b
    if tr:
        cx, cy, a, c = cy, cx, c, a
    return torch.stack([cx, cy, a, b, c], -1)


def _unview_grid(t, shapes, fx, fy, tr):
    """(B, A, K) per-anchor values of a view -> the original image's anchor order, level by level."""
    out, i = [], 0
    for h, w in shapes:
        h, w = int(h), int(w)
        g = t[:, i:i + h * w].reshape(t.shape[0], h, w, t.shape[-1])
        if fx:
            g = g.flip(2)
        if fy:
            g = g.flip(1)
        if tr:
            g = g.transpose(1, 2)
        out.append(g.reshape(t.shape[0], h * w, t.shape[-1]))
        i += h * w
    return torch.cat(out, 1)


def predict(model, x, mode="off"):
    """Decoded boxes (B, A, 4 xyxy px, or 5 cx, cy, w, h, theta for rotated boxes) and class scores (B, A, nc) of
    images x, averaged over the mode's views."""
    views = VIEWS[mode]
    if len(views) == 1:
        return decode(model(x), model.stride)
    box_sum = score_sum = None
    for (fx, fy, tr), view in zip(views, _views(x, mode)):
        out = model(view)
        boxes, scores = decode(out, model.stride)
        h, w = view.shape[-2:]
        if boxes.shape[-1] == 5:
            boxes = _unview_shapes(rbox_shape(boxes), w, h, fx, fy, tr)
        else:
            boxes = _unview_boxes(boxes, w, h, fx, fy, tr)
        boxes = _unview_grid(boxes, out["shapes"], fx, fy, tr)
        scores = _unview_grid(scores, out["shapes"], fx, fy, tr)
        box_sum = boxes if box_sum is None else box_sum + boxes
        score_sum = scores if score_sum is None else score_sum + scores
    boxes = box_sum / len(views)
    return shape_rbox(boxes) if boxes.shape[-1] == 5 else boxes, score_sum / len(views)


def class_probs(model, x, mode="off", anti=None):
    """A classifier's probabilities (B, nc) of square images x, averaged over the mode's views: softmax or
    per-class sigmoid alike. A view of a whole image needs no mapping back. `anti`: flips as products (the exported
    graph, see _mirror)."""
    views = _views(x, mode, anti)
    if len(views) == 1:
        return model.probs(model(x).float())
    if anti is not None:
        # The graph runs the views as one batch: a weight used by several passes comes out of ONNX's constant
        # folding as copies joined by Identity nodes, which OpenCV's importer rejects. The shapes are constants
        # (model.nc), not read from the input at run time.
        p = model.probs(model(torch.cat(views)).float())
        return p.reshape(len(views), -1, model.nc).mean(0)
    return sum(model.probs(model(v).float()) for v in views) / len(views)


def pixel_probs(model, x, mode="off", anti=None, anti_low=None):
    """A segmenter's per-pixel probabilities (B, C, H, W) of images x, each view's mapped back onto the image's
    pixels and averaged: softmax or per-class sigmoid alike. `anti` and `anti_low`: flips as products (see
    _mirror) of sides W, H and of W/4, H/4, for the exported graph of one image. Its views run as one batch (as in
    class_probs), cut apart by constant slices and mapped back at the head's stride 4, where a flip costs a
    sixteenth: exact, since bilinear upsampling by a whole factor commutes with flips and transposes. Its views
    keep x's shape, so transposed ones need a square input."""
    views = VIEWS[mode]
    if len(views) == 1:
        return model.probs(model(x).float())
    if anti is not None:
        low = model.logits_low(torch.cat(_views(x, mode, anti))).float()
        low = torch.cat([_unview_pixels(low[i:i + 1], *v, anti_low) for i, v in enumerate(views)])
        return model.probs(model.upsample(low, x)).mean(0, keepdim=True)
    maps = [_unview_pixels(model.probs(model(v).float()), *view) for v, view in zip(_views(x, mode), views)]
    return sum(maps[1:], maps[0]) / len(views)
