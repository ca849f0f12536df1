"""Post-processing shared by evaluation and the exported ONNX graph (so both return the same boxes).
Axis-aligned: greedy NMS (torchvision.ops.nms, exported as ONNX NonMaxSuppression). Rotated: matrix
suppression over ProbIoU (a box goes if any higher-scored box overlaps it more than `iou`), tensor ops only.
Text lines (`lines`, OCR) also lose the pieces of a higher-scored line: ProbIoU keeps a thin line's shorter copies
("LOT:26-841" beside "LOT:26-8411V"), which would each be read as one more line."""
import math

import torch
import torchvision

from loupe_engine.losses.iou import rbox_iou_matrix

# The default NMS IoU of test, validation, measurement and export (the platform's test settings start there too).
# 0.7 kept same-class near-duplicates that COCO's matching counts as false positives: 0.6 gave 0.001-0.019 more
# mAP50 on six few-image DeepPCB models' validation images, 0.003 on a 30-minute one, 0.012 on bench:obb, and lost
# one of bench:ocr's 102 lines (engine/BENCHMARKS.md, "Run 33, and the NMS IoU").
NMS_IOU = 0.6


def postprocess(boxes, scores, conf=0.25, iou=NMS_IOU, agnostic=False, max_det=300, pre_nms=3000, lines=False):
    """boxes (A,G) px, scores (A,C) for ONE image -> (K, G+2): box..., score, class. Sorted by score. `lines`:
    rotated boxes are text lines (same_line)."""
    score, cls = scores.max(1)
    keep = score > conf
    boxes, score, cls = boxes[keep], score[keep], cls[keep]
    # sort + slice, not topk(min(k, n)): the candidate count is data-dependent and must stay so in ONNX
    score, order = score.sort(descending=True)
    score, order = score[:pre_nms], order[:pre_nms]
    boxes, cls = boxes[order], cls[order]
    if boxes.shape[-1] == 4:
        offset = boxes.new_zeros(()) if agnostic else cls.to(boxes.dtype)[:, None] * 8192.0
        keep = torchvision.ops.nms(boxes + offset, score, iou)
    else:
        keep = rotated_nms(boxes, score, cls, iou, agnostic, lines)
    keep = keep[:max_det]
    return torch.cat([boxes[keep], score[keep, None], cls[keep, None].to(boxes.dtype)], 1)


# Box j is a piece or a copy of box i's text line when their directions differ by less than this, their centres lie
# less than half a line height apart across the line, and at least this share of j's length lies along i's.
LINE_ANGLE_DEG = 15.0
LINE_COVER = 0.85


def same_line(boxes):
    """(N, 5) cx, cy, w, h, theta text boxes -> (N, N) bool: box j is a piece or a copy of box i's line. A line runs
    along its box's longer side. Tensor ops only (the exported graph runs it)."""
    cx, cy, w, h, t = boxes.unbind(-1)
    length, height = torch.maximum(w, h), torch.minimum(w, h)
    t = torch.where(w >= h, t, t + math.pi / 2)
    ux, uy = torch.cos(t)[:, None], torch.sin(t)[:, None]
    dx, dy = cx[None, :] - cx[:, None], cy[None, :] - cy[:, None]  # [i, j]: j's centre seen from i's
    along = dx * ux + dy * uy
    across = (dy * ux - dx * uy).abs()
    parallel = torch.sin(t[None, :] - t[:, None]).abs() < math.sin(math.radians(LINE_ANGLE_DEG))
    li, lj = length[:, None], length[None, :]
    shared = (torch.minimum(li / 2, along + lj / 2) - torch.maximum(-li / 2, along - lj / 2)).clamp(min=0)
    return parallel & (across < 0.5 * torch.maximum(height[:, None], height[None, :])) & \
        (shared >= LINE_COVER * lj)


def rotated_nms(boxes, score, cls, iou, agnostic=False, lines=False):
    """boxes sorted by descending score. Returns kept indices in score order. `lines`: a box on a higher-scored
    box's text line (same_line) goes too, whatever its class: one piece of text is one line, and a piece read
    under another class (a lot number's tail taken for a serial) is still a piece."""
    m = rbox_iou_matrix(boxes, boxes)
    if not agnostic:
        m = m * (cls[:, None] == cls[None, :]).to(m.dtype)
    if lines:
        m = torch.where(same_line(boxes), torch.ones_like(m), m)
    idx = torch.arange(m.shape[0], device=m.device)
    m = m * (idx[:, None] < idx[None, :]).to(m.dtype)  # only higher-scored boxes suppress (upper triangle)
    worst = torch.cat([m, m.new_zeros(1, m.shape[1])], 0).max(0)[0]  # the zero row keeps empty input valid
    return torch.nonzero(worst < iou).reshape(-1)


def batch_postprocess(boxes, scores, **kw):
    return [postprocess(b, s, **kw) for b, s in zip(boxes, scores)]
