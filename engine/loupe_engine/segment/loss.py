"""Segmentation loss: a pixel term plus soft Dice per class, so small parts are not drowned by background.
overlap_mask=true: cross-entropy over background + classes, Dice on the class channels' softmax.
overlap_mask=false: binary cross-entropy per class plane, Dice on the sigmoids."""
import torch
import torch.nn.functional as F


def soft_dice_loss(probs, onehot):
    """1 - mean over channels of 2|P.G| / (|P| + |G|), summed over the batch; +1 smoothing so a class absent
    from a batch only pushes its probabilities towards 0."""
    dims = (0, 2, 3)
    inter = (probs * onehot).sum(dims)
    return (1 - (2 * inter + 1) / (probs.sum(dims) + onehot.sum(dims) + 1)).mean()


class SegmentLoss:
    def __init__(self, overlap):
        self.overlap = overlap

    def __call__(self, logits, target):
        logits = logits.float()
        if target.shape[-2:] != logits.shape[-2:]:  # multi-scale: labels at the batch's size
            logits = F.interpolate(logits, size=target.shape[-2:], mode="bilinear", align_corners=False)
        if self.overlap:
            pixel = F.cross_entropy(logits, target)
            onehot = F.one_hot(target, logits.shape[1]).permute(0, 3, 1, 2).float()
            dice = soft_dice_loss(logits.softmax(1)[:, 1:], onehot[:, 1:])
        else:
            t = target.float()
            pixel = F.binary_cross_entropy_with_logits(logits, t)
            dice = soft_dice_loss(logits.sigmoid(), t)
        return pixel + dice, torch.stack([pixel.detach(), dice.detach()])
