"""Synthetic text lines that cover characters rare in the user's labels: random strings over the charset (and
the user's own texts with characters swapped), rendered with Debian's fonts (fonts-dejavu-core,
fonts-liberation; Pillow's ImageFont) on patches of the user's training images, in the text colours of the
user's crops. Without Pillow or without fonts, OpenCV's Hershey fonts draw the ASCII characters."""
import glob
import os
import random

import cv2
import numpy as np

from loupe_engine.events import log

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation",
             "/usr/share/fonts/truetype/liberation2")
HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
           cv2.FONT_HERSHEY_PLAIN)

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError:  # python3-pil missing: Hershey fonts only
    Image = None


def font_files():
    files = sorted(f for d in FONT_DIRS for f in glob.glob(os.path.join(d, "*.ttf")))
    return [f for f in files if "ExtraLight" not in f] if Image is not None else []


def text_colours(crop):
    """(background, text) RGB colours of a uint8 crop: the median of its border pixels, and the mean of the 15 %
    of pixels farthest from it."""
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]).astype(np.float32)
    bg = np.median(border, 0)
    px = crop.reshape(-1, 3).astype(np.float32)
    d = np.abs(px - bg).sum(1)
    fg = px[d >= np.quantile(d, 0.85)].mean(0)
    return tuple(int(v) for v in bg), tuple(int(v) for v in fg)


class Renderer:
    """Draws (image, rbox, text) samples; the rectifying crop and its augmentation then treat them as real ones."""

    def __init__(self, charset, texts, colours, backgrounds, aspects=None):
        self.charset, self.texts = list(charset), list(texts)
        # the labelled boxes' width per character in box heights: lines drawn in any font are stretched to these
        # proportions half the time, so narrow plate or dot-matrix characters are learnt from narrow synthetic ones
        self.aspects = [a for a in (aspects or []) if a > 0]
        self.colours = colours or [((200, 200, 200), (30, 30, 30))]
        self.backgrounds = backgrounds  # uint8 RGB images (parts of training images)
        self.lengths = [len(t) for t in texts] or [8]
        self.fonts = font_files()
        self._font_cache, self._missing = {}, {}
        if not self.fonts:
            log("note: no TrueType fonts (fonts-dejavu-core, fonts-liberation) or no Pillow: synthetic text uses "
                "OpenCV's Hershey fonts, ASCII only")
        self.ascii = [c for c in self.charset if 32 <= ord(c) < 127]

    def _font(self, path, size):
        key = (path, size)
        if key not in self._font_cache:
            self._font_cache[key] = ImageFont.truetype(path, size)
        return self._font_cache[key]

    def _covers(self, path, ch):
        """Whether a font has a glyph for ch (a missing glyph renders as the font's .notdef box)."""
        key = (path, ch)
        if key not in self._missing:
            f = self._font(path, 24)
            def bits(c):
                m = f.getmask(c)
                return m.size, bytes(m)
            self._missing[key] = ch == " " or bits(ch) != bits("\uffff")
        return self._missing[key]

    def random_text(self, rng, max_len=None):
        if self.texts and rng.random() < 0.5 and max_len is None:
            t = list(rng.choice(self.texts))
            for k in range(len(t)):
                if rng.random() < 0.3:
                    t[k] = rng.choice(self.charset)
        else:
            n = rng.choice(self.lengths)
            t = [rng.choice(self.charset) for _ in range(rng.randint(1, max(1, min(n, max_len))) if max_len else n)]
        return " ".join("".join(t).split()) or rng.choice([c for c in self.charset if c != " "] or ["0"])

    def _background(self, rng, w, h):
        if self.backgrounds and rng.random() < 0.8:
            src = rng.choice(self.backgrounds)
            sh, sw = src.shape[:2]
            cw, ch = min(sw, max(4, int(w * rng.uniform(0.3, 1.2)))), min(sh, max(4, int(h * rng.uniform(0.3, 1.2))))
            x0, y0 = rng.randint(0, sw - cw), rng.randint(0, sh - ch)
            patch = cv2.resize(np.ascontiguousarray(src[y0:y0 + ch, x0:x0 + cw]), (w, h), interpolation=cv2.INTER_LINEAR)
            return patch
        bg = np.array(rng.choice(self.colours)[0], np.float32)
        grad = np.linspace(rng.uniform(-30, 30), rng.uniform(-30, 30), w, dtype=np.float32)[None, :, None]
        return np.clip(bg + grad + np.zeros((h, w, 3), np.float32), 0, 255).astype(np.uint8)

    def sample(self, rng, max_len=None):
        """(uint8 RGB image, (cx, cy, w, h, angle_deg) of the text, text). max_len: random strings of at most
        that many characters (the curriculum's first steps)."""
        text = self.random_text(rng, max_len)
        if self.fonts:
            path = rng.choice(self.fonts)
            text = "".join(c for c in text if self._covers(path, c)).strip() or text
            img, box = self._pil(rng, text, path)
        else:
            text = "".join(c for c in text if c in self.ascii).strip() or "0"
            img, box = self._hershey(rng, text)
        return self._like_labels(rng, img, box, len(text)) + (text,)

    def _like_labels(self, rng, img, box, n):
        """The line as the user's labels show text: its box loosened half the time (labellers draw around a plate
        or a label, not the ink), then stretched across to a width per character of a labelled box."""
        cx, cy, w, h, a = box
        if rng.random() < 0.5:
            h2 = h * rng.uniform(1.0, 1.5)
            w, h = w + (h2 - h) * rng.uniform(0.5, 1.5), h2
        if self.aspects and rng.random() < 0.5:
            s = min(1.8, max(0.55, rng.choice(self.aspects) * h * n / max(w, 1.0)))
            img = cv2.resize(img, (max(1, int(round(img.shape[1] * s))), img.shape[0]), interpolation=cv2.INTER_AREA
                             if s < 1 else cv2.INTER_LINEAR)
            cx, w = cx * s, w * s
        H, W = img.shape[:2]
        w, h = min(w, W), min(h, H)
        return img, (cx, cy, w, h, a)

    def _colour(self, rng, canvas):
        fg = np.array(rng.choice(self.colours)[1], np.float32)
        mean = canvas.reshape(-1, 3).mean(0)
        if np.abs(fg - mean).sum() < 120:  # too faint on this background: the contrasting extreme
            fg = np.zeros(3, np.float32) if mean.mean() > 127 else np.full(3, 255, np.float32)
        return tuple(int(v) for v in np.clip(fg + rng.uniform(-20, 20), 0, 255))

    def _pil(self, rng, text, path):
        size = rng.randint(24, 40)
        font = self._font(path, size)
        spacing = rng.uniform(-0.04, 0.2) * size if rng.random() < 0.5 else 0.0
        advances = [font.getlength(c) + spacing for c in text]
        ascent, descent = font.getmetrics()
        tw = max(1.0, sum(advances) - spacing)
        pad = size
        W, H = int(tw + 2 * pad), int(ascent + descent + 2 * pad)
        canvas = self._background(rng, W, H)
        img = Image.fromarray(canvas)
        ink = Image.new("L", (W, H), 0)
        draw, mark = ImageDraw.Draw(img), ImageDraw.Draw(ink)
        fg = self._colour(rng, canvas)
        x = float(pad)
        shadow = rng.random() < 0.2  # engraved / embossed look
        for c, adv in zip(text, advances):
            if shadow:
                draw.text((x + 1, pad + 1), c, font=font, fill=tuple(255 - v for v in fg))
            draw.text((x, pad), c, font=font, fill=fg)
            mark.text((x, pad), c, font=font, fill=255)
            x += adv
        # the box of the drawn glyphs (ink), as a labeller would draw it
        l, t, r, b = ink.getbbox() or (pad, pad, pad + 1, pad + 1)
        return np.asarray(img), ((l + r) / 2, (t + b) / 2, max(r - l, 1), max(b - t, 1), 0.0)

    def _hershey(self, rng, text):
        face = rng.choice(HERSHEY)
        scale = rng.uniform(0.8, 1.3)
        thick = rng.randint(1, 3)
        (tw, th), base = cv2.getTextSize(text, face, scale, thick)
        pad = th
        W, H = tw + 2 * pad, th + base + 2 * pad
        canvas = np.ascontiguousarray(self._background(rng, W, H))
        cv2.putText(canvas, text, (pad, pad + th), face, scale, self._colour(rng, canvas), thick, cv2.LINE_AA)
        return canvas, (pad + tw / 2, pad + (th + base) / 2, tw, th + base, 0.0)


def make_rng(seed):
    return random.Random(seed)
