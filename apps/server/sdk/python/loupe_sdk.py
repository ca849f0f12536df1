"""Loupe Python SDK: runs ../model-raw.onnx (a detector without NMS) and returns boxes in image pixels, or
../model.onnx of a classifier (classes with probabilities) or a segmenter (class map and objects).

Inference: onnxruntime when it is installed (CUDA first for the GPU SDK types), else OpenCV DNN (Debian's
python3-opencv has no onnxruntime beside it). NMS as the platform does it, classes kept apart unless the model was
exported class-agnostic: greedy IoU NMS with cv2.dnn.NMSBoxes for boxes; for rotated boxes the engine's ProbIoU
suppression (cv2.dnn.NMSBoxesRotated measures polygon IoU and keeps near-square duplicates the platform drops), and
for text lines (OCR) the pieces of a higher-scored line, whatever their class.
Pre-processing repeats the training engine's letterbox exactly, so boxes match the platform's to well under a
pixel. A model tested with test-time augmentation names its views in the metadata (`tta`); the SDK runs each view
through the graph and averages the candidates anchor by anchor, as the engine does (a rotated box as its centre and
its shape matrix R diag(w, h) R^T, engine tta.py)."""
import json
import math

import cv2
import numpy as np

PRE_NMS = 3000  # candidates kept before NMS, as in the engine
CLASS_OFFSET = 8192.0  # shifts each class's boxes apart so one NMS call never merges two classes
# Test-time augmentation views as (flip x, flip y, transpose), the engine's tta.py
VIEWS = {
    "off": ((0, 0, 0),),
    "hflip": ((0, 0, 0), (1, 0, 0)),
    "flips": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)),
    "dihedral": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)),
}


def read_metadata(path):
    """ModelProto.metadata_props (field 14) of an ONNX file, read straight from the protobuf bytes."""
    with open(path, "rb") as f:
        buf = f.read()

    def varint(pos):
        result, shift = 0, 0
        while True:
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result, pos
            shift += 7

    def fields(start, end):
        pos = start
        while pos < end:
            tag, pos = varint(pos)
            wire = tag & 7
            if wire == 0:
                _, pos = varint(pos)
            elif wire == 1:
                pos += 8
            elif wire == 5:
                pos += 4
            elif wire == 2:
                n, pos = varint(pos)
                yield tag >> 3, pos, pos + n
                pos += n
            else:
                raise ValueError(f"unsupported protobuf wire type {wire}")

    props = {}
    for field, s, e in fields(0, len(buf)):
        if field == 14:
            kv = {f: buf[a:b].decode() for f, a, b in fields(s, e)}
            props[kv.get(1, "")] = kv.get(2, "")
    return props


def probiou(a, b, eps=1e-7):
    """ProbIoU of (N,5) x (M,5) cx,cy,w,h,theta boxes (engine losses/iou.py): the IoU of their Gaussians."""
    def cov(r):
        x, y = r[..., 2] ** 2 / 12, r[..., 3] ** 2 / 12
        c, s = np.cos(r[..., 4]), np.sin(r[..., 4])
        return x * c ** 2 + y * s ** 2, x * s ** 2 + y * c ** 2, (x - y) * c * s

    a, b = a[:, None, :], b[None, :, :]
    a1, b1, c1 = cov(a)
    a2, b2, c2 = cov(b)
    dx, dy = a[..., 0] - b[..., 0], a[..., 1] - b[..., 1]
    den = (a1 + a2) * (b1 + b2) - (c1 + c2) ** 2 + eps
    t1 = ((a1 + a2) * dy ** 2 + (b1 + b2) * dx ** 2) / den * 0.25
    t2 = ((c1 + c2) * -dx * dy) / den * 0.5
    t3 = np.log(den / (4 * np.sqrt(np.clip(a1 * b1 - c1 ** 2, 0, None) * np.clip(a2 * b2 - c2 ** 2, 0, None)) + eps)
                + eps) * 0.5
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    return 1 - np.sqrt(1 - np.exp(-bd) + eps)


def rbox_shape(r):
    """(N, 5) cx, cy, w, h, theta -> cx, cy and the shape matrix R diag(w, h) R^T as a, b, c (engine tta.py)."""
    c, s = np.cos(r[:, 4]), np.sin(r[:, 4])
    w, h = r[:, 2], r[:, 3]
    return np.stack([r[:, 0], r[:, 1], w * c * c + h * s * s, (w - h) * s * c, w * s * s + h * c * c], 1)


def shape_rbox(m):
    """rbox_shape's inverse: w the larger eigenvalue, theta in the engine's range [-pi/4, 3pi/4)."""
    a, b, c = m[:, 2], m[:, 3], m[:, 4]
    mid, half = (a + c) / 2, np.sqrt(((a - c) / 2) ** 2 + b * b)
    den = half + (a - c) / 2  # theta = atan2(2b, a - c) / 2 as the engine's graph computes it
    t = np.where(den > 0, np.arctan(b / np.maximum(den, 1e-30)), math.pi / 2)
    t = np.where(t < -math.pi / 4, t + math.pi, t)
    return np.stack([m[:, 0], m[:, 1], mid + half, mid - half, t], 1)


LINE_ANGLE_DEG, LINE_COVER = 15.0, 0.85  # text lines, as the engine's nms.py


def same_line(boxes):
    """(N, 5) text boxes -> (N, N) bool: box j is a piece or a copy of box i's line (engine nms.py): directions
    within 15 degrees, centres less than half a line height apart across it, 85 % of j's length along i's."""
    length, height = np.maximum(boxes[:, 2], boxes[:, 3]), np.minimum(boxes[:, 2], boxes[:, 3])
    t = np.where(boxes[:, 2] >= boxes[:, 3], boxes[:, 4], boxes[:, 4] + math.pi / 2)
    ux, uy = np.cos(t)[:, None], np.sin(t)[:, None]
    dx, dy = boxes[None, :, 0] - boxes[:, None, 0], boxes[None, :, 1] - boxes[:, None, 1]
    along, across = dx * ux + dy * uy, np.abs(dy * ux - dx * uy)
    parallel = np.abs(np.sin(t[None, :] - t[:, None])) < math.sin(math.radians(LINE_ANGLE_DEG))
    li, lj = length[:, None], length[None, :]
    shared = np.clip(np.minimum(li / 2, along + lj / 2) - np.maximum(-li / 2, along - lj / 2), 0, None)
    return parallel & (across < 0.5 * np.maximum(height[:, None], height[None, :])) & \
        (shared >= LINE_COVER * lj)


def rotated_nms(boxes, cls, iou, agnostic, lines=False):
    """boxes sorted by score: a box goes when any higher-scored box of its class overlaps it more than `iou`; for
    text lines (`lines`, OCR) also when it lies on a higher-scored box's line, whatever its class."""
    m = probiou(boxes, boxes)
    if not agnostic:
        m = m * (cls[:, None] == cls[None, :])
    if lines:
        m = np.where(same_line(boxes), 1.0, m)
    m = np.triu(m, 1)
    worst = m.max(0) if len(boxes) else np.zeros(0)
    return np.nonzero(worst < iou)[0]


def letterbox(img, width, height):
    """The engine's letterbox (data/augment.py): keep aspect, bilinear, centred padding of 114."""
    h0, w0 = img.shape[:2]
    r = min(height / h0, width / w0)
    nw, nh = int(round(w0 * r)), int(round(h0 * r))
    if (nw, nh) != (w0, h0):
        img = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)
    left, top = int(round((width - nw) / 2 - 0.1)), int(round((height - nh) / 2 - 0.1))
    out = np.full((height, width, 3), 114, np.uint8)
    out[top:top + nh, left:left + nw] = img
    return out, r, left, top


class Model:
    def __init__(self, path, device="cpu"):
        props = read_metadata(path)
        if "loupe" not in props:
            raise ValueError(f"{path} is not a Loupe model (no 'loupe' metadata)")
        self.meta = json.loads(props["loupe"])
        self.task = self.meta["task"]
        if self.task in ("detect", "obb", "ocr") and self.meta.get("nms", True):
            raise ValueError(f"{path} has NMS inside the graph; the Python SDK runs the model exported with --no-nms")
        self.labels = self.meta["labels"]
        self.rotated = self.task in ("obb", "ocr")
        self.width, self.height = self.meta["input_width"], self.meta["input_height"]
        self.backend = None
        try:
            import onnxruntime as ort
            wanted = ["CUDAExecutionProvider", "CPUExecutionProvider"] if device == "cuda" else ["CPUExecutionProvider"]
            providers = [p for p in wanted if p in ort.get_available_providers()]
            self.session = ort.InferenceSession(path, providers=providers)
            self.backend = "onnxruntime:" + self.session.get_providers()[0]
        except ImportError:
            self.net = cv2.dnn.readNetFromONNX(path)
            self.backend = "opencv:cpu"
            if device == "cuda" and hasattr(cv2, "cuda") and cv2.cuda.getCudaEnabledDeviceCount() > 0:
                self.net.setPreferableBackend(cv2.dnn.DNN_BACKEND_CUDA)
                self.net.setPreferableTarget(cv2.dnn.DNN_TARGET_CUDA)
                self.backend = "opencv:cuda"

    def _forward(self, x):
        """The output the SDK reads: candidates (detect, obb) or probs (classify, segment)."""
        name = "candidates" if self.task in ("detect", "obb", "ocr") else "probs"
        if self.backend.startswith("onnxruntime"):
            return self.session.run([name], {"images": x})[0]
        self.net.setInput(x)
        return self.net.forward(name)

    def _candidates(self, x):
        """(A, 4+nc) boxes and scores per anchor of input x (5+nc for rotated boxes), averaged over the model's
        test-time views: each view's boxes mapped back to the input and its rows put back in the input's anchor
        order, level by level."""
        views = VIEWS[self.meta.get("tta", "off")]
        total = None
        for fx, fy, tr in views:
            v = x.transpose(0, 1, 3, 2) if tr else x
            v = v[..., ::-1] if fx else v
            v = v[..., ::-1, :] if fy else v
            c = self._forward(np.ascontiguousarray(v))[0].astype(np.float64)
            h, w = v.shape[2:]
            if self.rotated and len(views) > 1:
                # centre and shape matrix: a mirror moves the centre and negates b, a transpose swaps x, y and a, c
                c[:, :5] = rbox_shape(c[:, :5])
                if fx:
                    c[:, 0], c[:, 3] = w - c[:, 0], -c[:, 3]
                if fy:
                    c[:, 1], c[:, 3] = h - c[:, 1], -c[:, 3]
                if tr:
                    c[:, [0, 1, 2, 4]] = c[:, [1, 0, 4, 2]]
            elif not self.rotated:
                if fx:
                    c[:, [0, 2]] = w - c[:, [2, 0]]
                if fy:
                    c[:, [1, 3]] = h - c[:, [3, 1]]
                if tr:
                    c[:, :4] = c[:, [1, 0, 3, 2]]
            parts, i = [], 0
            for s in self.meta["strides"] if len(views) > 1 else ():
                gh, gw = h // s, w // s
                g = c[i:i + gh * gw].reshape(gh, gw, -1)
                g = g[:, ::-1] if fx else g
                g = g[::-1] if fy else g
                parts.append((g.transpose(1, 0, 2) if tr else g).reshape(gh * gw, -1))
                i += gh * gw
            c = np.concatenate(parts) if parts else c
            total = c if total is None else total + c
        total /= len(views)
        if self.rotated and len(views) > 1:
            total[:, :5] = shape_rbox(total[:, :5])
        return total.astype(np.float32)

    def _input(self, bgr):
        img, r, left, top = letterbox(bgr, self.width, self.height)
        return np.ascontiguousarray(img[..., ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255, r, left, top

    def classify(self, bgr, conf=None):
        """Classifiers: every class as a dict classId, label, score (its probability), most probable first;
        multi-label models only the classes whose probability reaches conf (default: the model's)."""
        x, _, _, _ = self._input(bgr)
        p = self._forward(x).reshape(-1)
        conf = self.meta.get("conf", 0.5) if conf is None else conf
        out = [{"classId": int(c), "label": self.labels[c], "score": float(p[c])} for c in np.argsort(-p, kind="stable")]
        return [o for o in out if o["score"] >= conf] if self.meta.get("multi_label") else out

    def segment(self, bgr, conf=None, masks=False):
        """Segmenters, as the engine does it: the probabilities of the image area resized to the image, each
        pixel's class, 8-connected regions per class. Returns (class_map, instances): class_map (h, w) uint16,
        0 = background, else classId + 1; instances dicts classId, label, score (mean probability), bbox
        [x, y, w, h], area (pixels), polygon (outer outline through the boundary pixel centres), and with
        masks=True mask (its pixels within bbox, bool): what measure_instance() measures."""
        h0, w0 = bgr.shape[:2]
        x, r, left, top = self._input(bgr)
        probs = self._forward(x)[0]
        h, w = int(round(h0 * r)), int(round(w0 * r))
        planes = [cv2.resize(c[top:top + h, left:left + w], (w0, h0), interpolation=cv2.INTER_LINEAR) for c in probs]
        overlap = self.meta.get("overlap_mask", True)
        conf = self.meta.get("conf", 0.5) if conf is None else conf
        if overlap:
            best = np.argmax(np.stack(planes), 0)
            class_map, masks = best.astype(np.uint16), [(c - 1, best == c, planes[c]) for c in range(1, len(planes))]
        else:
            stack = np.stack(planes)
            top_cls = stack.argmax(0)
            class_map = np.where(stack.max(0) >= conf, top_cls + 1, 0).astype(np.uint16)
            masks = [(c, p >= conf, p) for c, p in enumerate(planes)]
        min_area = max(1, round(2 / r ** 2))
        out = []
        for c, m, p in masks:
            n, comp, stats, _ = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
            for k in range(1, n):
                bx, by, bw, bh, area = (int(v) for v in stats[k])
                if area < min_area:
                    continue
                crop = comp[by:by + bh, bx:bx + bw] == k
                cs, _ = cv2.findContours(crop.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
                poly = max(cs, key=len).reshape(-1, 2) + [bx + 0.5, by + 0.5] if cs else np.zeros((0, 2))
                out.append({"classId": c, "label": self.labels[c], "score": float(p[by:by + bh, bx:bx + bw][crop].mean()),
                            "bbox": [bx, by, bw, bh], "area": area,
                            "polygon": poly.tolist() if len(poly) >= 3 else [],
                            **({"mask": crop} if masks else {})})
        return class_map, sorted(out, key=lambda o: -o["score"])

    def detect(self, bgr, conf=None, iou=None, max_det=None):
        """bgr: an image as cv2.imread returns it. Returns a list of dicts: box [x1, y1, x2, y2], score, classId,
        label, and for rotated boxes rbox {cx, cy, w, h, angle (degrees, clockwise on screen)} and polygon."""
        conf = self.meta["conf"] if conf is None else conf
        iou = self.meta["iou"] if iou is None else iou
        max_det = self.meta["max_det"] if max_det is None else max_det
        img, r, left, top = letterbox(bgr, self.width, self.height)
        x = np.ascontiguousarray(img[..., ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255
        cand = self._candidates(x)
        nb = 5 if self.rotated else 4
        scores = cand[:, nb:]
        cls = scores.argmax(1)
        score = scores.max(1)
        keep = np.nonzero(score > conf)[0]
        keep = keep[np.argsort(-score[keep], kind="stable")][:PRE_NMS]
        boxes, cls, score = cand[keep, :nb].astype(np.float64), cls[keep], score[keep].astype(np.float64)
        off = np.zeros(len(keep)) if self.meta.get("agnostic") else cls * CLASS_OFFSET
        if self.rotated:
            idx = rotated_nms(boxes, cls, iou, bool(self.meta.get("agnostic")), lines=self.task == "ocr")
        else:
            rects = [[b[0] + o, b[1] + o, b[2] - b[0], b[3] - b[1]] for b, o in zip(boxes, off)]
            idx = cv2.dnn.NMSBoxes(rects, score.tolist(), conf, iou) if rects else []
        out = []
        for i in np.array(idx, dtype=int).reshape(-1)[:max_det]:
            b, c = boxes[i], int(cls[i])
            d = {"score": float(score[i]), "classId": c, "label": self.labels[c] if c < len(self.labels) else str(c)}
            if self.rotated:
                cx, cy, w, h = (b[0] - left) / r, (b[1] - top) / r, b[2] / r, b[3] / r
                poly = cv2.boxPoints(((cx, cy), (w, h), math.degrees(b[4])))
                d["box"] = [float(v) for v in (*poly.min(0), *poly.max(0))]
                d["rbox"] = {"cx": cx, "cy": cy, "w": w, "h": h, "angle": math.degrees(b[4])}
                d["polygon"] = poly.tolist()
            else:
                d["box"] = [(b[0] - left) / r, (b[1] - top) / r, (b[2] - left) / r, (b[3] - top) / r]
            out.append(d)
        return out


class Reader:
    """The OCR recognizer (model-rec.onnx): reads one text line from a rotated box. Cuts the box out and rectifies
    it exactly as the training engine does (turned to its reading direction, with the margins of the model's
    metadata, 32 px high, bilinear, padded on the right), then decodes the per-step probabilities greedily (CTC: repeats collapsed, blanks
    dropped)."""

    def __init__(self, path):
        props = read_metadata(path)
        if "loupe" not in props:
            raise ValueError(f"{path} is not a Loupe recognizer (no 'loupe' metadata)")
        self.meta = json.loads(props["loupe"])
        self.charset = self.meta["charset"]
        self.height, self.width = self.meta["input_height"], self.meta["input_width"]
        self.margin, self.pad, self.line_aspect = self.meta["margin"], self.meta["pad_value"], self.meta["line_aspect"]
        # context before and after the line (older exports: the same as above and below)
        self.margin_x = self.meta.get("margin_x", self.margin)
        try:
            import onnxruntime as ort
            self.session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            self.net = None
        except ImportError:
            self.session, self.net = None, cv2.dnn.readNetFromONNX(path)

    def canonical(self, cx, cy, w, h, angle):
        """The same rectangle with w along the reading direction: a long box reads along its long side, a squarer
        one in the orientation closest to upright."""
        a, w, h = float(angle), float(w), float(h)
        if max(w, h) >= self.line_aspect * min(w, h):
            if h > w:
                w, h, a = h, w, a + 90.0
            a -= 180.0 * math.ceil((a - 90.0) / 180.0)
        else:
            k = math.ceil((a - 45.0) / 90.0)
            a -= 90.0 * k
            if k % 2:
                w, h = h, w
        return float(cx), float(cy), w, h, a

    def rectify(self, rgb, box):
        """rgb (H, W, 3) uint8; box canonical (cx, cy, w, h, angle°) -> float32 (1, 3, height, width) in 0..1."""
        cx, cy, w, h, ang = box
        H, W = rgb.shape[:2]
        m, mx = self.margin * h, self.margin_x * h
        cw = int(min(self.width, max(1, round(self.height * (w + 2 * mx) / max(h + 2 * m, 1e-6)))))
        xs = (np.arange(cw, dtype=np.float64) + 0.5) / cw - 0.5
        ys = (np.arange(self.height, dtype=np.float64) + 0.5) / self.height - 0.5
        v = (ys * (h + 2 * m))[:, None]
        u = (xs * (w + 2 * mx))[None, :]
        t = math.radians(ang)
        c, s = math.cos(t), math.sin(t)
        fx = np.clip(cx + u * c - v * s - 0.5, 0, W - 1)
        fy = np.clip(cy + u * s + v * c - 0.5, 0, H - 1)
        x0, y0 = np.floor(fx).astype(np.int64), np.floor(fy).astype(np.int64)
        x1, y1 = np.minimum(x0 + 1, W - 1), np.minimum(y0 + 1, H - 1)
        wx, wy = (fx - x0)[..., None], (fy - y0)[..., None]
        f = rgb.astype(np.float64)
        top = f[y0, x0] * (1 - wx) + f[y0, x1] * wx
        bot = f[y1, x0] * (1 - wx) + f[y1, x1] * wx
        out = np.full((self.height, self.width, 3), self.pad, np.float64)
        out[:, :cw] = (top * (1 - wy) + bot * wy) / 255
        return np.ascontiguousarray(out.transpose(2, 0, 1))[None].astype(np.float32)

    def read(self, rgb, rbox):
        """The text in rbox {cx, cy, w, h, angle} of an RGB image, and its score (mean probability of the
        characters read; of every step when nothing was read)."""
        x = self.rectify(rgb, self.canonical(rbox["cx"], rbox["cy"], rbox["w"], rbox["h"], rbox["angle"]))
        if self.session is not None:
            probs = self.session.run(["probs"], {"images": x})[0]
        else:
            self.net.setInput(x)
            probs = self.net.forward("probs")
        probs = probs.reshape(-1, len(self.charset) + 1)
        best, top = probs.argmax(1), probs.max(1)
        chars, scores, prev = [], [], 0
        for t, k in enumerate(best.tolist()):
            if k != prev and k != 0:
                chars.append(self.charset[k - 1])
                scores.append(float(top[t]))
            prev = k
        return "".join(chars), float(np.mean(scores)) if scores else float(np.mean(top))


def _text_distance(a, b):
    """Edit distance of two text formats: adding or dropping a character costs 1, swapping it 1, or 0.5 between two
    letters (the engine's ocr/formats.py)."""
    prev = [float(j) for j in range(len(b) + 1)]
    for i, ca in enumerate(a, 1):
        cur = [float(i)]
        for j, cb in enumerate(b, 1):
            swap = 0.0 if ca == cb else 0.5 if ca.isalpha() and cb.isalpha() else 1.0
            cur.append(min(prev[j] + 1.0, cur[j - 1] + 1.0, prev[j - 1] + swap))
        prev = cur
    return prev[-1]


def relabel(text, cls, class_formats):
    """The class of a line read as `text` that the detector gave class `cls`: the class whose training texts'
    formats (digits written as 9) lie a whole edit nearer than those of `cls` (the nearest, the lowest on a tie),
    else `cls`; as the engine's ocr/formats.py."""
    if not text or cls >= len(class_formats) or not class_formats[cls]:
        return cls
    f = "".join("9" if "0" <= ch <= "9" else ch for ch in text)
    near = [min((_text_distance(f, p) for p in ps), default=float("inf")) for ps in class_formats]
    best = min(range(len(near)), key=lambda c: (near[c], c))
    return best if near[best] + 1.0 <= near[cls] else cls


def read_text(model, reader, bgr, conf=None):
    """OCR: the text lines `model` (the text detector without NMS) finds in a BGR image, each a detection with
    `text` and `textScore` read by `reader`, and the class its text fits (relabel)."""
    rgb = np.ascontiguousarray(bgr[..., ::-1])
    lines = model.detect(bgr, conf=conf)
    formats = model.meta.get("text_formats") or []
    for d in lines:
        d["text"], d["textScore"] = reader.read(rgb, d["rbox"])
        c = relabel(d["text"], d["classId"], formats)
        if c != d["classId"]:
            d["classId"], d["label"] = c, model.labels[c]
    return lines


# ---------------------------------------------------------------------------------------------------------------
# Measurement (MEASURE models): the platform's fields, by the training engine's definitions
# (engine/loupe_engine/measure/fields.py), and the OK/NG verdict of an image under sdk.json's tolerances.

FIELDS = ("area", "major_axis", "minor_axis", "angle", "centroid_x", "centroid_y")


def _fields(area, major, minor, angle, cx, cy):
    return {"area": area, "major_axis": major, "minor_axis": minor, "angle": angle, "centroid_x": cx, "centroid_y": cy}


def _extent(pts, u):
    """Spread of the boundary pixel centres along unit direction u plus, at each end, the expected gap to the true
    edge: c / (k + 1) for k distinct offsets among the centres within one lattice step c of that end."""
    proj = pts @ u
    c = max(abs(u[0]), abs(u[1]))
    length = proj.max() - proj.min()
    for gap in (proj.max() - proj, proj - proj.min()):
        near = gap[gap < c - 1e-6]
        length += c / (len(np.unique(np.round(near, 3))) + 1)
    return float(length)


def measure_mask(mask, offset=(0, 0)):
    """Fields of a binary mask (h, w) whose top-left pixel sits at offset (x, y), in pixels; None if empty.
    Pixel (i, j) covers [j, j+1) x [i, i+1); axes are the sides of the minimum-area rectangle around the boundary
    pixel centres, each pushed out to the expected edge; angle: the long side's direction, degrees in [0, 180)
    clockwise on screen from +x."""
    m = np.ascontiguousarray(mask, dtype=np.uint8)
    mo = cv2.moments(m, binaryImage=True)
    if mo["m00"] == 0:
        return None
    cx, cy = mo["m10"] / mo["m00"] + 0.5 + offset[0], mo["m01"] / mo["m00"] + 0.5 + offset[1]
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts = np.concatenate([c.reshape(-1, 2) for c in contours]).astype(np.float64)
    box = cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32)))
    side = box[1] - box[0] if np.hypot(*(box[1] - box[0])) > 1e-6 else box[2] - box[1]
    u = side / np.hypot(*side) if np.hypot(*side) > 1e-6 else np.array([1.0, 0.0])
    axes = [(_extent(pts, u), u), (_extent(pts, np.array([-u[1], u[0]])), np.array([-u[1], u[0]]))]
    (major, v), (minor, _) = sorted(axes, key=lambda t: -t[0])
    angle = math.degrees(math.atan2(v[1], v[0])) % 180.0
    return _fields(float(mo["m00"]), major, minor, 0.0 if angle >= 180.0 - 1e-9 else angle, cx, cy)


def measure_instance(inst):
    """Fields of a segment() instance taken with masks=True, in pixels."""
    x, y = inst["bbox"][:2]
    return measure_mask(inst["mask"], (x, y))


def measure_rbox(cx, cy, w, h, angle_deg):
    """Fields of a rotated box (angle in degrees, clockwise on screen), in pixels."""
    ang = (angle_deg if w >= h else angle_deg + 90.0) % 180.0
    return _fields(w * h, max(w, h), min(w, h), 0.0 if ang >= 180.0 - 1e-9 else ang, cx, cy)


def measure_detection(d):
    """Fields of a detect() result: its rbox, or its axis-aligned box at angle 0."""
    if d.get("rbox"):
        r = d["rbox"]
        return measure_rbox(r["cx"], r["cy"], r["w"], r["h"], r["angle"])
    x1, y1, x2, y2 = d["box"]
    return measure_rbox((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1, 0.0)


def to_mm(m, mm_per_px):
    """Lengths and centroid times mm per pixel, the area times its square; the angle stays in degrees."""
    s = mm_per_px
    return _fields(m["area"] * s * s, m["major_axis"] * s, m["minor_axis"] * s, m["angle"], m["centroid_x"] * s, m["centroid_y"] * s)


def in_range(value, r, angle=False):
    """Bounds inclusive within 1e-9 (either may be None); an angle range with min > max wraps around 180."""
    if not r:
        return True
    lo, hi = r.get("min"), r.get("max")
    if angle and lo is not None and hi is not None and lo > hi:
        return value >= lo or value <= hi
    return (lo is None or value >= lo - 1e-9) and (hi is None or value <= hi + 1e-9)


def judge_image(objects, tolerances):
    """objects: dicts label and values (in the tolerances' unit); tolerances: sdk.json measure.tolerances.
    Returns (ok, failures, failed fields per object, counts per label), as the platform judges."""
    by_label = {t["label"]: t for t in tolerances["labels"]}
    failures, counts, failed = [], {}, []
    for i, o in enumerate(objects):
        counts[o["label"]] = counts.get(o["label"], 0) + 1
        ranges = by_label.get(o["label"], {}).get("fields", {})
        bad = [f for f in FIELDS if ranges.get(f) and not in_range(o["values"][f], ranges[f], f == "angle")]
        failures += [{"kind": "field", "label": o["label"], "index": i, "field": f, "value": o["values"][f], "range": ranges[f]} for f in bad]
        failed.append(bad)
    n = len(objects)
    if tolerances.get("count") and not in_range(n, tolerances["count"]):
        failures.append({"kind": "count", "label": None, "index": None, "field": None, "value": n, "range": tolerances["count"]})
    for t in tolerances["labels"]:
        k = counts.get(t["label"], 0)
        if t.get("count") and not in_range(k, t["count"]):
            failures.append({"kind": "count", "label": t["label"], "index": None, "field": None, "value": k, "range": t["count"]})
    return not failures, failures, failed, counts


def describe_failure(f):
    """A failure in words, as the Node SDK's describeFailure."""
    r = f"{'…' if f['range'].get('min') is None else f['range']['min']}..{'…' if f['range'].get('max') is None else f['range']['max']}"
    v = str(f["value"]) if float(f["value"]).is_integer() else f"{f['value']:.3f}"
    if f["kind"] == "field":
        return f"{f['label']} #{f['index']}: {f['field']} {v} outside {r}"
    return f"{'count' if f['label'] is None else f['label'] + ' count'} {v} outside {r}"


def measurement(found, measure):
    """found: (label, confidence, pixel fields) per object; measure: sdk.json's measure. The example's output: per
    object px (rounded to 3 decimals as the platform shows them) and mm when calibrated, the count and the verdict."""
    mm_per_px, tol = measure.get("mmPerPx"), measure.get("tolerances")
    objects = []
    for label, confidence, px in found:
        px = {k: round(float(v), 3) for k, v in px.items()}
        objects.append({"label": label, "confidence": confidence, "px": px, "mm": to_mm(px, mm_per_px) if mm_per_px else None})
    counts = {}
    for o in objects:
        counts[o["label"]] = counts.get(o["label"], 0) + 1
    if not tol:
        return {"count": len(objects), "counts": counts, "mmPerPx": mm_per_px, "ok": None, "reasons": [], "objects": objects}
    ok, failures, failed, _ = judge_image([{"label": o["label"], "values": o["mm"] if tol["unit"] == "mm" else o["px"]} for o in objects], tol)
    return {"count": len(objects), "counts": counts, "mmPerPx": mm_per_px, "unit": tol["unit"], "ok": ok,
            "reasons": [describe_failure(f) for f in failures], "objects": [{**o, "failed": f} for o, f in zip(objects, failed)]}
