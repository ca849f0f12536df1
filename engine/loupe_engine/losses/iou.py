"""IoU for axis-aligned boxes (plain and complete-IoU) and rotated boxes (ProbIoU: the Hellinger distance
between the boxes' Gaussians; differentiable, symmetric under w/h swap + 90 degrees, cheap as tensor ops)."""
import math

import torch


def box_iou(a, b, eps=1e-7):
    """(N,4) x (M,4) xyxy -> (N,M)."""
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(0).prod(2)
    area_a = (a[:, 2:] - a[:, :2]).clamp(0).prod(1)
    area_b = (b[:, 2:] - b[:, :2]).clamp(0).prod(1)
    return inter / (area_a[:, None] + area_b[None] - inter + eps)


def ciou(a, b, eps=1e-7):
    """Element-wise complete IoU of (...,4) xyxy boxes."""
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = a.unbind(-1), b.unbind(-1)
    w1, h1 = ax2 - ax1, (ay2 - ay1).clamp(eps)
    w2, h2 = bx2 - bx1, (by2 - by1).clamp(eps)
    inter = (torch.min(ax2, bx2) - torch.max(ax1, bx1)).clamp(0) * (torch.min(ay2, by2) - torch.max(ay1, by1)).clamp(0)
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = inter / union
    cw = torch.max(ax2, bx2) - torch.min(ax1, bx1)
    ch = torch.max(ay2, by2) - torch.min(ay1, by1)
    c2 = cw ** 2 + ch ** 2 + eps
    rho2 = ((bx1 + bx2 - ax1 - ax2) ** 2 + (by1 + by2 - ay1 - ay2) ** 2) / 4
    v = (4 / math.pi ** 2) * (torch.atan(w2 / h2) - torch.atan(w1 / h1)).pow(2)
    with torch.no_grad():
        alpha = v / (v - iou + (1 + eps))
    return iou - (rho2 / c2 + v * alpha)


def _cov(b):
    a, bb = b[..., 2] ** 2 / 12, b[..., 3] ** 2 / 12
    c, s = torch.cos(b[..., 4]), torch.sin(b[..., 4])
    return a * c ** 2 + bb * s ** 2, a * s ** 2 + bb * c ** 2, (a - bb) * c * s


def probiou(b1, b2, eps=1e-7):
    """Broadcasting ProbIoU of (...,5) cx,cy,w,h,theta boxes."""
    x1, y1, x2, y2 = b1[..., 0], b1[..., 1], b2[..., 0], b2[..., 1]
    a1, bb1, c1 = _cov(b1)
    a2, bb2, c2 = _cov(b2)
    den = (a1 + a2) * (bb1 + bb2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * (y1 - y2) ** 2 + (bb1 + bb2) * (x1 - x2) ** 2) / den * 0.25
    t2 = ((c1 + c2) * (x2 - x1) * (y1 - y2)) / den * 0.5
    t3 = torch.log(den / (4 * torch.sqrt((a1 * bb1 - c1 ** 2).clamp(0) * (a2 * bb2 - c2 ** 2).clamp(0)) + eps)
                   + eps) * 0.5
    bd = (t1 + t2 + t3).clamp(eps, 100.0)
    return 1 - torch.sqrt(1 - torch.exp(-bd) + eps)


def rbox_iou_matrix(a, b):
    """(N,5) x (M,5) -> (N,M) ProbIoU."""
    return probiou(a[:, None, :], b[None, :, :])


def rbox_corners(b):
    """(N,5) -> (N,4,2) corners, clockwise on screen."""
    cx, cy, w, h, t = b.unbind(-1)
    c, s = torch.cos(t), torch.sin(t)
    dx = torch.stack([-w, w, w, -w], -1) / 2
    dy = torch.stack([-h, -h, h, h], -1) / 2
    return torch.stack([cx[:, None] + dx * c[:, None] - dy * s[:, None],
                        cy[:, None] + dx * s[:, None] + dy * c[:, None]], -1)
