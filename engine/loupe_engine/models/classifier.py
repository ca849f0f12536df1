"""Loupe's image classifier: the shared CSP backbone, a 1x1 expansion, global average pooling, dropout and one
linear layer. Logits out; softmax (single-label) or sigmoid (multi-label) is applied by the caller and inside
the exported graph."""
import torch.nn as nn

from loupe_engine.models.backbone import channels, csp_backbone, resolve, run_backbone
from loupe_engine.models.blocks import Conv

HIDDEN = {"p": 256, "n": 1280, "s": 1280, "m": 1280}  # width of the 1x1 expansion before pooling


class Classifier(nn.Module):
    def __init__(self, nc, size="p", dropout=0.0, multi_label=False, arch=None):
        super().__init__()
        self.arch = resolve(size, arch)
        self.nc, self.size, self.multi_label = nc, size, multi_label
        self.backbone = csp_backbone(self.arch)  # index i is "layer i" for freeze=N
        self.expand = Conv(channels(self.arch)[4], HIDDEN[size], 1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(HIDDEN[size], nc)

    def forward(self, x):
        x = self.expand(run_backbone(self.backbone, x)[-1])
        return self.fc(self.drop(self.pool(x).flatten(1)))

    def probs(self, logits):
        return logits.sigmoid() if self.multi_label else logits.softmax(1)
