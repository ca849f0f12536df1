"""Segmentation loss: a pixel term plus soft Dice per class, so small parts are not drowned by background.
overlap_mask=true: cross-entropy over background + classes, Dice on the class channels' softmax.
overlap_mask=false: binary cross-entropy per class plane, Dice on the sigmoids.

The pixel term adds a mined mean to the plain one (`hard_negatives`, on by default): per image, every labelled
pixel and of the background pixels only the hardest -- three times as many as the labelled ones, at least 1/16 of
the image (a defect-free image keeps its hardest 1/16 as negatives). With defects on 1-2 % of the pixels, plain
cross-entropy is almost all easy background, and answering "background" everywhere is its cheapest minimum; the
mined mean weighs a missed defect pixel like a false alarm on the hardest background. The plain mean stays so the
easy background keeps its gradient: mined alone let 24-step runs on large shapes over-predict (mIoU 0.275 against
0.339 plain, 0.302 both; tests/test_parallel.py's segment run)."""
import torch
import torch.nn.functional as F

NEG_PER_POS = 3  # mined background pixels per labelled pixel
MIN_NEG_SHARE = 1 / 16  # the least share of an image's pixels kept as negatives


def soft_dice_loss(probs, onehot):
    """1 - mean over channels of 2|P.G| / (|P| + |G|), summed over the batch; +1 smoothing so a class absent
    from a batch only pushes its probabilities towards 0."""
    dims = (0, 2, 3)
    inter = (probs * onehot).sum(dims)
    return (1 - (2 * inter + 1) / (probs.sum(dims) + onehot.sum(dims) + 1)).mean()


def mined_mean(loss, fg):
    """Mean of per-pixel losses (B, N) over every foreground pixel and each image's hardest background pixels."""
    n = loss.shape[1]
    k = torch.clamp(fg.sum(1) * NEG_PER_POS, min=int(n * MIN_NEG_SHARE), max=n)  # negatives per image
    bg_loss = loss.masked_fill(fg, -1.0)
    top = bg_loss.topk(int(k.max()), dim=1).values
    keep = torch.arange(top.shape[1], device=loss.device)[None] < k[:, None]
    keep &= top >= 0  # fewer background pixels than k: the -1 fillers are not negatives
    total = (loss * fg).sum() + (top * keep).sum()
    return total / (fg.sum() + keep.sum()).clamp(min=1)


class SegmentLoss:
    def __init__(self, overlap, hard_negatives=True):
        self.overlap, self.hard_negatives = overlap, hard_negatives

    def __call__(self, logits, target):
        logits = logits.float()
        if target.shape[-2:] != logits.shape[-2:]:  # multi-scale: labels at the batch's size
            logits = F.interpolate(logits, size=target.shape[-2:], mode="bilinear", align_corners=False)
        b = logits.shape[0]
        if self.overlap:
            if self.hard_negatives:
                ce = F.cross_entropy(logits, target, reduction="none").reshape(b, -1)
                pixel = ce.mean() + mined_mean(ce, (target > 0).reshape(b, -1))
            else:
                pixel = F.cross_entropy(logits, target)
            onehot = F.one_hot(target, logits.shape[1]).permute(0, 3, 1, 2).float()
            dice = soft_dice_loss(logits.softmax(1)[:, 1:], onehot[:, 1:])
        else:
            t = target.float()
            if self.hard_negatives:  # per plane: a class's pixels and its hardest others
                bce = F.binary_cross_entropy_with_logits(logits, t, reduction="none")
                pixel = bce.mean() + mined_mean(bce.reshape(b * t.shape[1], -1), (t > 0).reshape(b * t.shape[1], -1))
            else:
                pixel = F.binary_cross_entropy_with_logits(logits, t)
            dice = soft_dice_loss(logits.sigmoid(), t)
        return pixel + dice, torch.stack([pixel.detach(), dice.detach()])
