"""Post-processing shared by evaluation and the exported ONNX graph (so both return the same boxes).
Axis-aligned: greedy NMS (torchvision.ops.nms, exported as ONNX NonMaxSuppression). Rotated: matrix
suppression over ProbIoU (a box goes if any higher-scored box overlaps it more than `iou`), tensor ops only."""
import torch
import torchvision

from loupe_engine.losses.iou import rbox_iou_matrix


def postprocess(boxes, scores, conf=0.25, iou=0.7, agnostic=False, max_det=300, pre_nms=3000):
    """boxes (A,G) px, scores (A,C) for ONE image -> (K, G+2): box..., score, class. Sorted by score."""
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
        keep = rotated_nms(boxes, score, cls, iou, agnostic)
    keep = keep[:max_det]
    return torch.cat([boxes[keep], score[keep, None], cls[keep, None].to(boxes.dtype)], 1)


def rotated_nms(boxes, score, cls, iou, agnostic=False):
    """boxes sorted by descending score. Returns kept indices in score order."""
    m = rbox_iou_matrix(boxes, boxes)
    if not agnostic:
        m = m * (cls[:, None] == cls[None, :]).to(m.dtype)
    idx = torch.arange(m.shape[0], device=m.device)
    m = m * (idx[:, None] < idx[None, :]).to(m.dtype)  # only higher-scored boxes suppress (upper triangle)
    worst = torch.cat([m, m.new_zeros(1, m.shape[1])], 0).max(0)[0]  # the zero row keeps empty input valid
    return torch.nonzero(worst < iou).reshape(-1)


def batch_postprocess(boxes, scores, **kw):
    return [postprocess(b, s, **kw) for b, s in zip(boxes, scores)]
