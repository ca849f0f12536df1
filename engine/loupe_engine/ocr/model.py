"""The text recognizer: a small VGG-style CNN that turns a 32 px high crop into one feature column per 8 input
columns, a bidirectional LSTM over those columns, and a per-column classifier (class 0 = CTC blank).

Debian's torch multiplies matrices with the generic reference BLAS (~1 GFLOP/s here), which makes nn.LSTM
~100x slower to train than the convolutions around it. `BiLSTM` is the same LSTM (nn.LSTM's parameters, names and
gate order i, f, g, o) computed with oneDNN convolutions: the input projection of every step as one 1x1
convolution, each step's recurrent product for both directions as one grouped 1x1 convolution. The export swaps
in nn.LSTM with these very weights, so the ONNX graph holds a standard LSTM operator."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from loupe_engine.ocr.crop import REC_HEIGHT

STRIDE = 8  # input columns per output step


def _conv(ci, co, k=3, p=1):
    return [nn.Conv2d(ci, co, k, 1, p, bias=False), nn.BatchNorm2d(co), nn.ReLU(inplace=True)]


class BiLSTM(nn.Module):
    """One bidirectional LSTM layer over (B, T, I) -> (B, T, 2H), parameters named as nn.LSTM's."""

    def __init__(self, inp, hidden):
        super().__init__()
        self.inp, self.hidden = inp, hidden
        k = hidden ** -0.5
        for sfx in ("_l0", "_l0_reverse"):
            self.register_parameter("weight_ih" + sfx, nn.Parameter(torch.empty(4 * hidden, inp).uniform_(-k, k)))
            self.register_parameter("weight_hh" + sfx, nn.Parameter(torch.empty(4 * hidden, hidden).uniform_(-k, k)))
            self.register_parameter("bias_ih" + sfx, nn.Parameter(torch.empty(4 * hidden).uniform_(-k, k)))
            self.register_parameter("bias_hh" + sfx, nn.Parameter(torch.empty(4 * hidden).uniform_(-k, k)))

    def forward(self, x):
        b, t, _ = x.shape
        hd = self.hidden
        w_ih = torch.cat([self.weight_ih_l0, self.weight_ih_l0_reverse])[:, :, None]
        bias = torch.cat([self.bias_ih_l0 + self.bias_hh_l0, self.bias_ih_l0_reverse + self.bias_hh_l0_reverse])
        gx = F.conv1d(x.transpose(1, 2), w_ih, bias)  # (B, 8H, T): forward gates, then reverse gates
        w_hh = torch.cat([self.weight_hh_l0, self.weight_hh_l0_reverse])[:, :, None, None]
        # per-step views through unbind: indexing gx step by step would make autograd fill a zero tensor of
        # gx's full size for every step on the way back (most of the time of a first version)
        steps = torch.stack([gx[:, :4 * hd], gx[:, 4 * hd:].flip(2)], 1).view(b, 2, 4, hd, t).unbind(4)
        h = x.new_zeros(b, 2 * hd, 1, 1)
        c = x.new_zeros(b, 2, hd)
        outs = []
        for s in range(t):
            g = steps[s] + F.conv2d(h, w_hh, groups=2).view(b, 2, 4, hd)
            i, f, gg, o = g.unbind(2)
            c = f.sigmoid() * c + i.sigmoid() * gg.tanh()
            hh = o.sigmoid() * c.tanh()  # (B, 2, H): forward step s, reverse step t-1-s
            h = hh.reshape(b, 2 * hd, 1, 1)
            outs.append(hh)
        y = torch.stack(outs, 1)  # (B, T, 2, H)
        return torch.cat([y[:, :, 0], y[:, :, 1].flip(1)], 2)

    def to_lstm(self):
        """nn.LSTM with these weights (the export's standard ONNX LSTM operator)."""
        m = nn.LSTM(self.inp, self.hidden, batch_first=True, bidirectional=True)
        m.load_state_dict(self.state_dict())
        return m


class Recognizer(nn.Module):
    """Input (B, 3, 32, W) RGB 0..1; one output step per 8 input columns. The classifier reads the LSTM's output
    and, through a shortcut, the CNN's features: CTC training then leaves its all-blank plateau in far fewer steps
    (a CPU budget buys a few hundred)."""

    def __init__(self, n_classes, hidden=96, channels=(16, 32, 64, 96, 128), dropout=0.0):
        super().__init__()
        c1, c2, c3, c4, c5 = channels
        self.n_classes, self.hidden, self.channels = n_classes, hidden, tuple(channels)
        # a stride-2 stem (40 % less training time than a full-resolution convolution and pooling: the weight
        # gradients of oneDNN's convolutions dominate a training step here), wider layers once the image has shrunk
        self.cnn = nn.Sequential(
            nn.Conv2d(3, c1, 3, 2, 1, bias=False), nn.BatchNorm2d(c1), nn.ReLU(inplace=True),  # 16 x W/2
            *_conv(c1, c2), nn.MaxPool2d(2, 2),  # 8 x W/4
            *_conv(c2, c3), nn.MaxPool2d(2, 2),  # 4 x W/8
            *_conv(c3, c4), *_conv(c4, c4), nn.MaxPool2d((2, 1), (2, 1)),  # 2 x W/8
            *_conv(c4, c5, (2, 3), (0, 1)))  # 1 x W/8
        self.drop = nn.Dropout(dropout)
        self.rnn = BiLSTM(c5, hidden)
        self.fc = nn.Conv1d(2 * hidden + c5, n_classes, 1)  # a per-step linear layer, as a oneDNN convolution

    def forward(self, x):
        """x (B, 3, 32, W) RGB 0..1 -> logits (B, W/8, classes)."""
        f = self.drop(self.cnn(x).squeeze(2).transpose(1, 2))  # (B, T, C)
        y = torch.cat([self.drop(self.rnn(f)), f], 2)
        return self.fc(y.transpose(1, 2)).transpose(1, 2)

    def arch(self):
        return {"n_classes": self.n_classes, "hidden": self.hidden, "channels": list(self.channels),
                "height": REC_HEIGHT, "stride": STRIDE}


class ExportedRecognizer(nn.Module):
    """The recognizer with nn.LSTM in place of BiLSTM (same weights) and softmax probabilities as output."""

    def __init__(self, rec):
        super().__init__()
        self.cnn, self.fc, self.lstm = rec.cnn, rec.fc, rec.rnn.to_lstm()

    def forward(self, images):
        f = self.cnn(images).flatten(2).transpose(1, 2)  # flatten, not squeeze: OpenCV 4.6 reads opset-17 Squeeze badly
        y = torch.cat([self.lstm(f)[0], f], 2)
        return self.fc(y.transpose(1, 2)).transpose(1, 2).softmax(2)


def build_recognizer(rec):
    """The recognizer of a checkpoint's `rec` entry, weights loaded, in eval mode."""
    a = rec["arch"]
    m = Recognizer(a["n_classes"], a["hidden"], a["channels"])
    m.load_state_dict(rec["model"])
    return m.eval()
