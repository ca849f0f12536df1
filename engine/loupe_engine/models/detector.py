"""Loupe's anchor-free single-stage detector: CSP backbone, PAN feature pyramid, decoupled heads with a
distribution (DFL) box branch; the rotated variant adds an angle branch. Sizes p (pico, for CPU budgets), n, s, m."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from loupe_engine.models.backbone import channels, csp_backbone, depth, resolve, run_backbone
from loupe_engine.models.blocks import C2f, Conv

REG_MAX = 16


class Detector(nn.Module):
    def __init__(self, nc, size="n", rotated=False, dropout=0.0, imgsz=640, arch=None):
        super().__init__()
        self.arch = resolve(size, arch)
        head = self.arch[3] if len(self.arch) > 3 else 0
        ch, n = channels(self.arch), depth(self.arch)
        self.nc, self.size, self.rotated = nc, size, rotated
        self.stride = torch.tensor([8.0, 16.0, 32.0])
        self.backbone = csp_backbone(self.arch)  # index i is "layer i" for freeze=N
        self.top4 = C2f(ch[4] + ch[3], ch[3], n(3))
        self.top3 = C2f(ch[3] + ch[2], ch[2], n(3))
        self.down3 = Conv(ch[2], ch[2], 3, 2)
        self.out4 = C2f(ch[2] + ch[3], ch[3], n(3))
        self.down4 = Conv(ch[3], ch[3], 3, 2)
        self.out5 = C2f(ch[3] + ch[4], ch[4], n(3))
        feats = (ch[2], ch[3], ch[4])
        c2, c3 = max(16, feats[0] // 4, REG_MAX * 4), max(feats[0], min(nc, 100))
        if head:
            c2, c3 = max(head, min(nc, 100)), max(head, min(nc, 100))
        self.box = nn.ModuleList(nn.Sequential(Conv(c, c2, 3), Conv(c2, c2, 3), nn.Conv2d(c2, 4 * REG_MAX, 1))
                                 for c in feats)
        self.cls = nn.ModuleList(nn.Sequential(Conv(c, c3, 3), Conv(c3, c3, 3), nn.Dropout(dropout),
                                               nn.Conv2d(c3, nc, 1)) for c in feats)
        if rotated:
            c4 = max(feats[0] // 4, 16)
            self.ang = nn.ModuleList(nn.Sequential(Conv(c, c4, 3), Conv(c4, c4, 3), nn.Conv2d(c4, 1, 1))
                                     for c in feats)
        self._init_bias(imgsz)

    def _init_bias(self, imgsz):
        for box, cls, s in zip(self.box, self.cls, self.stride):
            box[-1].bias.data[:] = 1.0
            # start from a prior of ~5 objects per image so early classification loss is sane
            cls[-1].bias.data[:] = math.log(5 / self.nc / (imgsz / float(s)) ** 2)

    def forward(self, x):
        """Raw outputs flattened over all anchors: box (B, 4*REG_MAX, A), cls (B, nc, A), [ang (B, 1, A)],
        plus the feature-map shapes needed to rebuild anchor points."""
        y = run_backbone(self.backbone, x)
        p3, p4, p5 = y[4], y[6], y[9]
        t4 = self.top4(torch.cat([F.interpolate(p5, scale_factor=2.0, mode="nearest"), p4], 1))
        n3 = self.top3(torch.cat([F.interpolate(t4, scale_factor=2.0, mode="nearest"), p3], 1))
        n4 = self.out4(torch.cat([self.down3(n3), t4], 1))
        n5 = self.out5(torch.cat([self.down4(n4), p5], 1))
        feats = (n3, n4, n5)
        out = {"box": torch.cat([self.box[i](f).flatten(2) for i, f in enumerate(feats)], 2),
               "cls": torch.cat([self.cls[i](f).flatten(2) for i, f in enumerate(feats)], 2),
               "shapes": [f.shape[2:] for f in feats]}
        if self.rotated:
            out["ang"] = torch.cat([self.ang[i](f).flatten(2) for i, f in enumerate(feats)], 2)
        return out


def anchors(shapes, strides, device, dtype=torch.float32):
    """Anchor centres (A, 2) in pixels and their strides (A, 1)."""
    pts, st = [], []
    for (h, w), s in zip(shapes, strides):
        sy, sx = torch.meshgrid(torch.arange(int(h), device=device, dtype=dtype) + 0.5,
                                torch.arange(int(w), device=device, dtype=dtype) + 0.5, indexing="ij")
        pts.append(torch.stack([sx, sy], -1).reshape(-1, 2) * float(s))
        st.append(torch.full((int(h) * int(w), 1), float(s), device=device, dtype=dtype))
    return torch.cat(pts), torch.cat(st)


def dfl_expect(box):
    """(B, 4*REG_MAX, A) logits -> (B, A, 4) expected distances in stride units."""
    b, _, a = box.shape
    p = box.view(b, 4, REG_MAX, a).softmax(2)
    proj = torch.arange(REG_MAX, dtype=box.dtype, device=box.device).view(1, 1, REG_MAX, 1)
    return (p * proj).sum(2).transpose(1, 2)


def angle(ang):
    """Angle logits -> radians in [-pi/4, 3pi/4)."""
    return (ang.sigmoid() - 0.25) * math.pi


def decode(out, model_strides):
    """Raw outputs -> boxes in input pixels (B, A, 4 xyxy or 5 cx,cy,w,h,theta) and class scores (B, A, nc)."""
    pts, st = anchors(out["shapes"], model_strides.tolist(), out["box"].device, out["box"].dtype)
    dist = dfl_expect(out["box"]) * st  # ltrb in px
    scores = out["cls"].sigmoid().transpose(1, 2)
    if "ang" not in out:
        return torch.cat([pts - dist[..., :2], pts + dist[..., 2:]], -1), scores
    return dist_to_rbox(dist, angle(out["ang"]).transpose(1, 2), pts), scores


def dist_to_rbox(dist, theta, pts):
    """ltrb distances measured in the box's rotated frame -> cx, cy, w, h, theta."""
    lt, rb = dist[..., :2], dist[..., 2:]
    cos, sin = torch.cos(theta), torch.sin(theta)
    xf, yf = ((rb - lt) / 2).split(1, -1)
    x, y = xf * cos - yf * sin, xf * sin + yf * cos
    return torch.cat([torch.cat([x, y], -1) + pts, lt + rb, theta], -1)


def count_flops(model, imgsz=640):
    """Parameters and forward GFLOPs (2 x multiply-accumulates of every convolution) at imgsz x imgsz."""
    flops = [0]

    def hook(m, inp, out):
        k = m.kernel_size[0] * m.kernel_size[1] * m.in_channels // m.groups
        flops[0] += 2 * k * out.numel() // out.shape[0]

    hs = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
    was = model.training
    model.eval()
    with torch.no_grad():
        # on the model's own device: a CUDA training counts its FLOPs at the end too (report.finish)
        model(torch.zeros(1, 3, imgsz, imgsz, device=next(model.parameters()).device))
    model.train(was)
    for h in hs:
        h.remove()
    return sum(p.numel() for p in model.parameters()), flops[0] / 1e9
