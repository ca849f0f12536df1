"""The CSP backbone every Loupe network starts from (detector, classifier, segmenter): strides 2..32, C2f blocks,
SPPF at the end. Index i of the ModuleList is "layer i" for `freeze=N`; outputs 2, 4, 6 and 9 are the stride-4, 8,
16 and 32 features the heads and decoders read."""
import math

import torch.nn as nn

from loupe_engine.models.blocks import C2f, SPPF, Conv

# size: (depth multiple, width multiple, max channels[, head width]). p (pico) is the CPU-budget size: channels
# 8/16/32/64/128, 32-channel heads, so the stride-8 head (where small objects live) stays cheap (~2x n's training
# images/s on 2 cores), and n's depth: two bottlenecks in the stride-8 and stride-16 stages, which cost 4 % more
# time per image and learn more per epoch (engine/BENCHMARKS.md, runs 18-19); same layers, heads, loss, assignment
# and export path as the other sizes.
SIZES = {"p": (0.34, 0.125, 128, 32), "n": (0.33, 0.25, 1024), "s": (0.33, 0.50, 1024), "m": (0.67, 0.75, 768)}
# Checkpoints record their size's tuple as "arch" (models/load.py); the ones written before they did were built
# from these, and still load.
LEGACY = {"p": (0.2, 0.125, 128, 32)}
FEATURES = {"p2": 2, "p3": 4, "p4": 6, "p5": 9}  # backbone output index of each stride's feature


def resolve(size, arch=None):
    """The architecture tuple a model builds: `arch` recorded in its checkpoint, else its size's."""
    return tuple(arch or SIZES[size])


def channels(arch):
    """Channels of the stride 2, 4, 8, 16, 32 stages of an architecture tuple (a value of SIZES)."""
    w, mc = arch[1:3]
    ch = [min(int(c * w), mc) for c in (64, 128, 256, 512, 1024)]
    return [max(8, int(math.ceil(c / 8) * 8)) for c in ch]


def depth(arch):
    d = arch[0]
    return lambda k: max(round(k * d), 1)


def csp_backbone(arch):
    ch, n = channels(arch), depth(arch)
    return nn.ModuleList([
        Conv(3, ch[0], 3, 2), Conv(ch[0], ch[1], 3, 2), C2f(ch[1], ch[1], n(3), True),
        Conv(ch[1], ch[2], 3, 2), C2f(ch[2], ch[2], n(6), True),
        Conv(ch[2], ch[3], 3, 2), C2f(ch[3], ch[3], n(6), True),
        Conv(ch[3], ch[4], 3, 2), C2f(ch[4], ch[4], n(3), True), SPPF(ch[4], ch[4])])


def run_backbone(backbone, x):
    """All stage outputs, so heads pick the strides they need."""
    y = []
    for m in backbone:
        x = m(x)
        y.append(x)
    return y
