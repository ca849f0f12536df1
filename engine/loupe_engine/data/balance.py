"""`balance`: class-balanced sampling. Each training image is drawn with a weight from its rarest class, so rare
defects appear in more batches without dropping the common ones; an epoch keeps its number of draws."""
import numpy as np
import torch

from loupe_engine.events import log


def image_weights(class_lists, nc):
    """Per image: max over its classes of (n_max / n_c) ** 0.5, n_c = training images showing class c; images
    without objects weigh 1. The square root keeps a class 100 times rarer at 10 times the draws, not 100 (the same
    handful of images repeated every batch would be memorised)."""
    counts = np.zeros(max(nc, 1))
    present = [np.unique(np.asarray(c, dtype=np.int64)) for c in class_lists]
    for cs in present:
        counts[cs] += 1
    n_max = counts.max() if counts.any() else 1.0
    return np.array([max(((n_max / counts[c]) ** 0.5 for c in cs), default=1.0) for cs in present])


def balanced_sampler(class_lists, nc, task):
    """A WeightedRandomSampler (with replacement, as many draws as images). It draws from torch's global stream,
    which the trainer seeds per epoch and alike on every data-parallel rank, so runs repeat under a seed and
    parallel.ShardSampler splits one shared order between the ranks."""
    w = image_weights(class_lists, nc)
    log(f"balance: {task} images drawn by their rarest class, weights {w.min():.2f}..{w.max():.2f}")
    return torch.utils.data.WeightedRandomSampler(torch.as_tensor(w, dtype=torch.double), len(w), replacement=True)
