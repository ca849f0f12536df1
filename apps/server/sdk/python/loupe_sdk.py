"""Loupe Python SDK: runs ../model-raw.onnx (a detector without NMS) and returns boxes in image pixels, or
../model.onnx of a classifier (classes with probabilities) or a segmenter (class map and objects).

Inference: onnxruntime when it is installed (CUDA first for the GPU SDK types), else OpenCV DNN (Debian's
python3-opencv has no onnxruntime beside it). NMS as the platform does it, classes kept apart unless the model was
exported class-agnostic: greedy IoU NMS with cv2.dnn.NMSBoxes for boxes; for rotated boxes the engine's ProbIoU
suppression (cv2.dnn.NMSBoxesRotated measures polygon IoU and keeps near-square duplicates the platform drops).
Pre-processing repeats the training engine's letterbox exactly, so boxes match the platform's to well under a
pixel."""
import json
import math

import cv2
import numpy as np

PRE_NMS = 3000  # candidates kept before NMS, as in the engine
CLASS_OFFSET = 8192.0  # shifts each class's boxes apart so one NMS call never merges two classes


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


def rotated_nms(boxes, cls, iou, agnostic):
    """boxes sorted by score: a box goes when any higher-scored box of its class overlaps it more than `iou`."""
    m = probiou(boxes, boxes)
    if not agnostic:
        m = m * (cls[:, None] == cls[None, :])
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

    def segment(self, bgr, conf=None):
        """Segmenters, as the engine does it: the probabilities of the image area resized to the image, each
        pixel's class, 8-connected regions per class. Returns (class_map, instances): class_map (h, w) uint16,
        0 = background, else classId + 1; instances dicts classId, label, score (mean probability), bbox
        [x, y, w, h], area (pixels), polygon (outer outline through the boundary pixel centres)."""
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
                            "polygon": poly.tolist() if len(poly) >= 3 else []})
        return class_map, sorted(out, key=lambda o: -o["score"])

    def detect(self, bgr, conf=None, iou=None, max_det=None):
        """bgr: an image as cv2.imread returns it. Returns a list of dicts: box [x1, y1, x2, y2], score, classId,
        label, and for rotated boxes rbox {cx, cy, w, h, angle (degrees, clockwise on screen)} and polygon."""
        conf = self.meta["conf"] if conf is None else conf
        iou = self.meta["iou"] if iou is None else iou
        max_det = self.meta["max_det"] if max_det is None else max_det
        img, r, left, top = letterbox(bgr, self.width, self.height)
        x = np.ascontiguousarray(img[..., ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255
        cand = self._forward(x)[0]
        nb = 5 if self.rotated else 4
        scores = cand[:, nb:]
        cls = scores.argmax(1)
        score = scores.max(1)
        keep = np.nonzero(score > conf)[0]
        keep = keep[np.argsort(-score[keep], kind="stable")][:PRE_NMS]
        boxes, cls, score = cand[keep, :nb].astype(np.float64), cls[keep], score[keep].astype(np.float64)
        off = np.zeros(len(keep)) if self.meta.get("agnostic") else cls * CLASS_OFFSET
        if self.rotated:
            idx = rotated_nms(boxes, cls, iou, bool(self.meta.get("agnostic")))
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
    it exactly as the training engine does (turned to its reading direction, a 10 % margin, 32 px high, bilinear,
    padded on the right), then decodes the per-step probabilities greedily (CTC: repeats collapsed, blanks
    dropped)."""

    def __init__(self, path):
        props = read_metadata(path)
        if "loupe" not in props:
            raise ValueError(f"{path} is not a Loupe recognizer (no 'loupe' metadata)")
        self.meta = json.loads(props["loupe"])
        self.charset = self.meta["charset"]
        self.height, self.width = self.meta["input_height"], self.meta["input_width"]
        self.margin, self.pad, self.line_aspect = self.meta["margin"], self.meta["pad_value"], self.meta["line_aspect"]
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
        m = self.margin * h
        cw = int(min(self.width, max(1, round(self.height * (w + 2 * m) / max(h + 2 * m, 1e-6)))))
        xs = (np.arange(cw, dtype=np.float64) + 0.5) / cw - 0.5
        ys = (np.arange(self.height, dtype=np.float64) + 0.5) / self.height - 0.5
        v = (ys * (h + 2 * m))[:, None]
        u = (xs * (w + 2 * m))[None, :]
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


def read_text(model, reader, bgr, conf=None):
    """OCR: the text lines `model` (the text detector without NMS) finds in a BGR image, each a detection with
    `text` and `textScore` read by `reader`."""
    rgb = np.ascontiguousarray(bgr[..., ::-1])
    lines = model.detect(bgr, conf=conf)
    for d in lines:
        d["text"], d["textScore"] = reader.read(rgb, d["rbox"])
    return lines
