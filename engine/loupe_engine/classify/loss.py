"""Classification loss: cross-entropy (single-label, soft targets after mixup/CutMix) or binary cross-entropy per
class (multi-label, positives weighted by sqrt(negatives/positives) for skewed classes)."""
import torch
import torch.nn.functional as F


class ClassifyLoss:
    def __init__(self, multi_label, pos_weight=None):
        self.multi_label, self.pos_weight = multi_label, pos_weight

    def __call__(self, logits, targets):
        if self.multi_label:
            pw = self.pos_weight.to(logits.device) if self.pos_weight is not None else None
            loss = F.binary_cross_entropy_with_logits(logits, targets.float(), pos_weight=pw)
        elif targets.dim() == 1:
            loss = F.cross_entropy(logits, targets.long())
        else:
            loss = -(targets * F.log_softmax(logits, 1)).sum(1).mean()
        return loss, loss.detach().view(1)


def multi_label_pos_weight(counts, n):
    """sqrt(negatives / positives) per class, between 1 and 10: rare labels count more without flooding the
    predictions with false positives the way the full ratio would."""
    pos = torch.as_tensor(counts, dtype=torch.float32).clamp(min=1)
    return ((n - pos).clamp(min=0) / pos).sqrt().clamp(1.0, 10.0)
