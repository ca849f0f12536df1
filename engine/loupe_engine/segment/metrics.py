"""Segmentation metrics over the image area (letterbox padding excluded), at the model's input resolution:
per-class IoU, Dice (= pixel F1), pixel precision and recall, their means over classes present (in the ground
truth or the predictions), background IoU and pixel accuracy (a pixel is right when its predicted set of
classes equals the true one; with overlap_mask=true that is argmax = label)."""
import numpy as np
import torch


class SegMetrics:
    def __init__(self, names, overlap, conf=0.5):
        self.names, self.nc, self.overlap, self.conf = names, len(names), overlap, conf
        self.inter = np.zeros(self.nc + 1)  # index 0 = background (overlap_mask=true only)
        self.pred = np.zeros(self.nc + 1)
        self.gt = np.zeros(self.nc + 1)
        self.correct = self.total = 0

    def update(self, probs, target):
        """probs (C, H, W) and target (H, W) class map or (nc, H, W) planes, both cropped to the image area."""
        if self.overlap:
            p = torch.nn.functional.one_hot(probs.argmax(0), self.nc + 1).permute(2, 0, 1).bool()
            g = torch.nn.functional.one_hot(target.long(), self.nc + 1).permute(2, 0, 1).bool()
        else:
            p, g = probs >= self.conf, target.bool()
            p = torch.cat([~p.any(0, keepdim=True), p])
            g = torch.cat([~g.any(0, keepdim=True), g])
        self.inter += (p & g).flatten(1).sum(1).cpu().numpy()
        self.pred += p.flatten(1).sum(1).cpu().numpy()
        self.gt += g.flatten(1).sum(1).cpu().numpy()
        self.correct += int((p == g).all(0).sum())
        self.total += p.shape[1] * p.shape[2]

    def compute(self):
        union = self.pred + self.gt - self.inter
        iou = self.inter / np.maximum(union, 1)
        dice = 2 * self.inter / np.maximum(self.pred + self.gt, 1)
        prec = self.inter / np.maximum(self.pred, 1)
        rec = self.inter / np.maximum(self.gt, 1)
        present = union[1:] > 0
        mean = (lambda v: float(v[1:][present].mean()) if present.any() else 0.0)  # noqa: E731
        return {"mIoU": mean(iou), "dice": mean(dice), "precision": mean(prec), "recall": mean(rec),
                "f1": mean(dice), "pixel_accuracy": self.correct / max(self.total, 1),
                "background_iou": float(iou[0]),
                "per_class": {n: {"IoU": float(iou[c + 1]), "dice": float(dice[c + 1]),
                                  "precision": float(prec[c + 1]), "recall": float(rec[c + 1]),
                                  "pixels": int(self.gt[c + 1])} for c, n in enumerate(self.names)}}
