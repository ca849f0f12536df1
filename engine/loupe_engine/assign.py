"""Task-aligned label assignment (TOOD): each ground-truth box takes the top-k anchors inside it ranked by
score^alpha * IoU^beta; an anchor claimed twice goes to the box it overlaps most. Targets are soft: the
class score target is the alignment metric normalised by the best IoU of that box."""
import torch

from loupe_engine.losses.iou import box_iou, probiou


class TaskAlignedAssigner:
    def __init__(self, topk=10, alpha=0.5, beta=6.0, eps=1e-9):
        self.topk, self.alpha, self.beta, self.eps = topk, alpha, beta, eps

    @torch.no_grad()
    def __call__(self, scores, pboxes, points, labels, gboxes, gmask):
        """scores (B,A,C) probabilities, pboxes (B,A,G) px, points (A,2), labels (B,M) long,
        gboxes (B,M,G), gmask (B,M) bool. Returns target boxes (B,A,G), scores (B,A,C), fg (B,A), gt index."""
        B, A, C = scores.shape
        M = gboxes.shape[1]
        if M == 0:
            return (torch.zeros_like(pboxes), torch.zeros_like(scores),
                    torch.zeros(B, A, dtype=torch.bool, device=scores.device), torch.zeros(B, A, dtype=torch.long))
        rotated = gboxes.shape[-1] == 5
        inside = self._inside(points, gboxes, rotated) & gmask[..., None]  # (B,M,A)
        if rotated:
            ov = probiou(gboxes[:, :, None, :], pboxes[:, None, :, :]).clamp(0)
        else:
            ov = torch.stack([box_iou(gboxes[b], pboxes[b]) for b in range(B)]).clamp(0)
        ov = ov * inside
        cls_score = scores.gather(2, labels[:, None, :].expand(B, A, M).clamp(0, C - 1)).transpose(1, 2)  # (B,M,A)
        metric = cls_score.pow(self.alpha) * ov.pow(self.beta) * inside
        k = min(self.topk, A)
        top = metric.topk(k, dim=2).indices
        pos = torch.zeros_like(metric).scatter_(2, top, 1.0) * inside  # (B,M,A)
        # one box per anchor: the highest-IoU one
        multi = pos.sum(1, keepdim=True) > 1
        best = torch.zeros_like(pos).scatter_(1, ov.argmax(1, keepdim=True), 1.0)
        pos = torch.where(multi, best * inside, pos)
        fg = pos.sum(1) > 0  # (B,A)
        gt_idx = pos.argmax(1)  # (B,A)
        tboxes = gboxes.gather(1, gt_idx[..., None].expand(-1, -1, gboxes.shape[-1]))
        tlabels = labels.gather(1, gt_idx).clamp(0, C - 1)
        tscores = torch.nn.functional.one_hot(tlabels, C).float() * fg[..., None]
        metric = metric * pos
        norm = (metric * ov.amax(2, keepdim=True) / (metric.amax(2, keepdim=True) + self.eps)).amax(1)  # (B,A)
        return tboxes, tscores * norm[..., None], fg, gt_idx

    def _inside(self, points, gboxes, rotated, eps=1e-9):
        p = points[None, None]  # (1,1,A,2)
        if not rotated:
            lt = p - gboxes[..., None, :2]
            rb = gboxes[..., None, 2:] - p
            return torch.cat([lt, rb], -1).amin(-1) > eps
        d = p - gboxes[..., None, :2]
        t = gboxes[..., None, 4]
        c, s = torch.cos(t), torch.sin(t)
        xr = d[..., 0] * c + d[..., 1] * s
        yr = -d[..., 0] * s + d[..., 1] * c
        return (xr.abs() <= gboxes[..., None, 2] / 2) & (yr.abs() <= gboxes[..., None, 3] / 2)
