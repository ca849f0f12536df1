"""Character sets, CTC encoding and greedy decoding, and the text metrics (character accuracy, line accuracy,
normalised edit distance). Class 0 of the recognizer is the CTC blank; character k of the charset is class k + 1."""
import numpy as np

from loupe_engine.events import EngineError

MAX_CHARSET = 1000  # distinct characters a recognizer may learn (its output layer has one class more)


def normalise(text):
    """Label text as the recognizer learns it: outer whitespace stripped, inner whitespace runs as one space."""
    return " ".join(str(text).split())


def build_charset(texts):
    chars = sorted({c for t in texts for c in t})
    if len(chars) > MAX_CHARSET:
        raise EngineError("charset_too_big", f"the label texts use {len(chars)} distinct characters; the recognizer "
                                             f"learns at most {MAX_CHARSET}: check for mislabelled texts")
    return chars


def encode(text, index):
    """Class indices of a text (characters outside the charset are dropped)."""
    return [index[c] for c in text if c in index]


def greedy_decode(probs, charset):
    """probs (T, C) per-timestep probabilities -> (text, score). Best class per step, repeats collapsed, blanks
    removed. score: mean probability of the steps that emit a character (first step of each run); an empty
    text scores the mean of every step's best probability. packages/runtime/src/ocr.ts repeats this."""
    best = probs.argmax(1)
    top = probs.max(1)
    chars, scores, prev = [], [], 0
    for t, k in enumerate(best.tolist()):
        if k != prev and k != 0:
            chars.append(charset[k - 1])
            scores.append(float(top[t]))
        prev = k
    score = float(np.mean(scores)) if scores else float(np.mean(top)) if len(top) else 0.0
    return "".join(chars), score


def edit_distance(a, b):
    """Levenshtein distance (insertions, deletions, substitutions all cost 1)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


class TextMetrics:
    """Over lines of ground truth: char_acc = sum(max(0, len - ED)) / sum(len) (1 - ED/len floored at 0, averaged
    over characters); line_acc = exact matches / lines; ned = mean of ED / max(len(truth), len(prediction)).
    A missed line is read as '' (wholly wrong)."""

    def __init__(self):
        self.chars = self.correct = self.lines = self.exact = 0
        self.ned_sum = 0.0

    def update(self, pred, truth):
        d = edit_distance(pred, truth)
        self.chars += len(truth)
        self.correct += max(0, len(truth) - d)
        self.lines += 1
        self.exact += pred == truth
        self.ned_sum += d / max(len(truth), len(pred), 1)

    def compute(self, prefix=""):
        return {f"{prefix}char_acc": self.correct / max(self.chars, 1), f"{prefix}line_acc": self.exact / max(self.lines, 1),
                f"{prefix}ned": self.ned_sum / max(self.lines, 1) if self.lines else 1.0, f"{prefix}lines": self.lines}
