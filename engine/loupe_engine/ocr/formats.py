"""A text line's class from what it says. OCR classes are often fields that differ only by their text (a serial
number, a lot code, a date), which the detector must tell apart from the ink alone. Training keeps the formats of
each class's texts (`formats`: digits written as 9, everything else as it is); a line read as text whose format is
clearly nearer another class's formats than its own detector class's takes that class (`relabel`).

"Clearly" is one whole edit: a character added, dropped, or swapped for one of another kind. Swapping one letter
for another costs half of one, and digits are all 9, so two classes of the same format (two 8-digit numbers)
never move a line from the class its detector gave. The same rule runs in packages/runtime/src/ocr.ts and the
Python SDK (apps/server/sdk/python/loupe_sdk.py); engine/tests/test_ocr_formats.py and the runtime's test hold
them to the same cases."""
from collections import Counter

MAX_FORMATS = 64  # per class: bounds the checkpoint, the export and the cost per line
POOL = 1024  # the most frequent formats of a class that formats() chooses from
MARGIN = 1.0


def text_format(text):
    """The text with each ASCII digit written as 9."""
    return "".join("9" if "0" <= ch <= "9" else ch for ch in text)


def formats(texts_by_class, n_classes):
    """Per class index, its texts' distinct formats, the most frequent first (ties in code-point order). A class
    with more than MAX_FORMATS keeps its most frequent, then each time the one farthest from those kept: random
    serial numbers rarely repeat a format, and frequency alone would keep one prefix and drop the others."""
    out = []
    for c in range(n_classes):
        counts = Counter(text_format(t) for t in texts_by_class.get(c, []) if t)
        ranked = [f for f, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))][:POOL]
        out.append(ranked if len(ranked) <= MAX_FORMATS else _spread(ranked))
    return out


def _spread(ranked):
    """MAX_FORMATS of `ranked`: its first, then each time the farthest from those taken (the earlier on a tie)."""
    taken = [ranked[0]]
    near = [distance(f, ranked[0]) for f in ranked]
    while len(taken) < MAX_FORMATS:
        k = max(range(len(ranked)), key=lambda i: (near[i], -i))
        taken.append(ranked[k])
        near = [min(d, distance(f, ranked[k])) for f, d in zip(ranked, near)]
    return taken


def _swap(a, b):
    if a == b:
        return 0.0
    return 0.5 if a.isalpha() and b.isalpha() else 1.0


def distance(a, b):
    """Edit distance: adding or dropping a character costs 1, swapping it 1, or 0.5 between two letters."""
    prev = [float(j) for j in range(len(b) + 1)]
    for i, ca in enumerate(a, 1):
        cur = [float(i)]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1.0, cur[j - 1] + 1.0, prev[j - 1] + _swap(ca, cb)))
        prev = cur
    return prev[-1]


def relabel(text, cls, class_formats):
    """The class of a line read as `text` that the detector gave class `cls`: the class whose nearest format is
    at least MARGIN nearer than `cls`'s nearest (the nearest such, the lowest index on a tie), else `cls`. A class
    without formats (its boxes had no text) neither takes nor gives lines."""
    if not text or cls >= len(class_formats) or not class_formats[cls]:
        return cls
    f = text_format(text)
    own = min(distance(f, p) for p in class_formats[cls])
    if own < MARGIN:  # no class can be a whole edit nearer (most lines: the detector's class, its format exactly)
        return cls
    near = [own if c == cls else min((distance(f, p) for p in ps), default=float("inf"))
            for c, ps in enumerate(class_formats)]
    best = min(range(len(near)), key=lambda c: (near[c], c))
    return best if near[best] + MARGIN <= near[cls] else cls
