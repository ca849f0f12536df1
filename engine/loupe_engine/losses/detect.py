"""Detection loss: BCE classification against task-aligned soft targets, IoU loss (complete IoU, or
ProbIoU for rotated boxes) and distribution focal loss on the box-side distributions."""
import torch
import torch.nn.functional as F

from loupe_engine.assign import TaskAlignedAssigner
from loupe_engine.losses.iou import ciou, probiou
from loupe_engine.models.detector import REG_MAX, anchors, angle, dfl_expect, dist_to_rbox


def dfl_loss(logits, target):
    """logits (n, 4, REG_MAX), target (n, 4) in bins: cross-entropy split between the two nearest bins."""
    tl = target.long()
    wl = tl + 1 - target
    wr = 1 - wl
    ce = lambda t: F.cross_entropy(logits.reshape(-1, REG_MAX), t.reshape(-1), reduction="none").view(t.shape)  # noqa
    return (ce(tl) * wl + ce((tl + 1).clamp(max=REG_MAX - 1)) * wr).mean(-1, keepdim=True)


class DetectionLoss:
    def __init__(self, model, cfg):
        self.strides = model.stride.tolist()
        self.nc, self.rotated = model.nc, model.rotated
        self.w_box, self.w_cls, self.w_dfl, self.w_obj = cfg.box, cfg.cls, cfg.dfl, cfg.obj
        self.assigner = TaskAlignedAssigner(topk=10, alpha=0.5, beta=6.0)
        self.link_all = False  # data-parallel training sets it (trainer/base.py)

    def __call__(self, out, targets):
        """out: model outputs; targets (N, 2+G): batch index, class, box (xyxy or cx,cy,w,h,theta) in px.
        Returns (total loss scaled by batch size, detached (box, cls, dfl))."""
        box_logits, cls_logits = out["box"], out["cls"].transpose(1, 2)  # (B,4R,A), (B,A,C)
        B, A, C = cls_logits.shape
        dev = cls_logits.device
        points, st = anchors(out["shapes"], self.strides, dev, cls_logits.dtype)
        dist = dfl_expect(box_logits)  # (B,A,4) in stride units
        if self.rotated:
            theta = angle(out["ang"]).transpose(1, 2)  # (B,A,1)
            pboxes = dist_to_rbox(dist * st, theta, points)
        else:
            pboxes = torch.cat([points - dist[..., :2] * st, points + dist[..., 2:] * st], -1)
        G = 5 if self.rotated else 4
        counts = torch.bincount(targets[:, 0].long(), minlength=B) if len(targets) else torch.zeros(B, dtype=torch.long)
        M = int(counts.max()) if len(targets) else 0
        gboxes = torch.zeros(B, M, G, device=dev)
        labels = torch.zeros(B, M, dtype=torch.long, device=dev)
        gmask = torch.zeros(B, M, dtype=torch.bool, device=dev)
        for b in range(B):
            t = targets[targets[:, 0] == b]
            n = len(t)
            if n:
                gboxes[b, :n], labels[b, :n], gmask[b, :n] = t[:, 2:], t[:, 1].long(), True
        tboxes, tscores, fg, _ = self.assigner(cls_logits.detach().sigmoid(), pboxes.detach(), points,
                                               labels, gboxes, gmask)
        tsum = max(tscores.sum(), 1.0)
        bce = F.binary_cross_entropy_with_logits(cls_logits, tscores, reduction="none")
        if self.w_obj != 1.0:
            bce = torch.where(fg[..., None], bce, bce * self.w_obj)
        l_cls = bce.sum() / tsum
        l_box = torch.zeros((), device=dev)
        if self.link_all and not fg.any():
            # data-parallel ranks must all produce a gradient for every parameter, or their gradient exchange stalls:
            # without objects the box (and angle) outputs join the graph at zero weight. Only then: a zero gradient
            # is not a missing one to Adam (its moments decay and the step goes on), and one process keeps the
            # missing one, as it always had
            l_box = 0.0 * box_logits.sum() + (0.0 * out["ang"].sum() if self.rotated else 0.0)
        l_dfl = torch.zeros((), device=dev)
        if fg.any():
            weight = tscores.sum(-1)[fg][:, None]
            if self.rotated:
                iou = probiou(pboxes[fg], tboxes[fg])[:, None]
            else:
                iou = ciou(pboxes[fg], tboxes[fg])[:, None]
            l_box = ((1.0 - iou) * weight).sum() / tsum
            pt = points[None].expand(B, -1, -1)[fg]
            s = st[None].expand(B, -1, -1)[fg]
            tb = tboxes[fg]
            if self.rotated:
                d = pt - tb[:, :2]
                c, sn = torch.cos(tb[:, 4:5]), torch.sin(tb[:, 4:5])
                xr = d[:, :1] * c + d[:, 1:2] * sn
                yr = -d[:, :1] * sn + d[:, 1:2] * c
                tdist = torch.cat([tb[:, 2:3] / 2 + xr, tb[:, 3:4] / 2 + yr, tb[:, 2:3] / 2 - xr,
                                   tb[:, 3:4] / 2 - yr], 1)
            else:
                tdist = torch.cat([pt - tb[:, :2], tb[:, 2:] - pt], 1)
            tdist = (tdist / s).clamp(0, REG_MAX - 1 - 0.01)
            logits = box_logits.view(B, 4, REG_MAX, A).permute(0, 3, 1, 2)[fg]  # (n,4,R)
            l_dfl = (dfl_loss(logits, tdist) * weight).sum() / tsum
        total = (self.w_box * l_box + self.w_cls * l_cls + self.w_dfl * l_dfl) * B
        return total, torch.stack([l_box, l_cls, l_dfl]).detach()
