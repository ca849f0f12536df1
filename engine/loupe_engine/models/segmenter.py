"""Loupe's semantic segmenter, an encoder-decoder written for CPU budgets: the shared CSP backbone as encoder,
a U-Net-style decoder that climbs from stride 32 to stride 4 through C2f blocks fed by the backbone's skip
features (stride 16, 8, 4), a 3x3 head at stride 4, and bilinear upsampling of the logits to the input size.

Two output modes (`overlap_mask`, see engine/README.md):
- overlap_mask=true: nc+1 channels, softmax, channel 0 = background; each pixel has exactly one class.
- overlap_mask=false: nc channels, one sigmoid each; a pixel may belong to several classes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from loupe_engine.models.backbone import FEATURES, channels, csp_backbone, depth, resolve, run_backbone
from loupe_engine.models.blocks import C2f, Conv


def _up(x, like):
    return F.interpolate(x, size=like.shape[2:], mode="nearest")


class Segmenter(nn.Module):
    def __init__(self, nc, size="p", dropout=0.0, overlap=True, arch=None):
        super().__init__()
        self.arch = resolve(size, arch)
        ch, n = channels(self.arch), depth(self.arch)
        self.nc, self.size, self.overlap = nc, size, overlap
        self.nout = nc + 1 if overlap else nc
        self.backbone = csp_backbone(self.arch)  # index i is "layer i" for freeze=N
        self.up4 = C2f(ch[4] + ch[3], ch[3], n(3))
        self.up3 = C2f(ch[3] + ch[2], ch[2], n(3))
        self.up2 = C2f(ch[2] + ch[1], ch[1], n(3))
        self.head = nn.Sequential(Conv(ch[1], ch[1], 3), nn.Dropout2d(dropout), nn.Conv2d(ch[1], self.nout, 1))

    def forward(self, x):
        """Logits (B, nout, H, W) at the input size."""
        return self.upsample(self.logits_low(x), x)

    def logits_low(self, x):
        """Logits (B, nout, H/4, W/4) at the head's stride 4."""
        y = run_backbone(self.backbone, x)
        p2, p3, p4, p5 = (y[FEATURES[k]] for k in ("p2", "p3", "p4", "p5"))
        t = self.up4(torch.cat([_up(p5, p4), p4], 1))
        t = self.up3(torch.cat([_up(t, p3), p3], 1))
        t = self.up2(torch.cat([_up(t, p2), p2], 1))
        return self.head(t)

    @staticmethod
    def upsample(logits, x):
        """Stride-4 logits -> the size of input x (bilinear)."""
        return F.interpolate(logits, size=x.shape[2:], mode="bilinear", align_corners=False)

    def probs(self, logits):
        return logits.softmax(1) if self.overlap else logits.sigmoid()
