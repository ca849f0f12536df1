"""Classification metrics. Single-label: top-1 (and top-5 with more than 5 classes) accuracy, per-class precision,
recall and F1, their macro means, and a confusion matrix (rows predicted, columns true, as for detection).
Multi-label (a class is predicted when its probability reaches `conf`): per-class precision, recall, F1 and AP,
their macro means, micro F1, exact-match accuracy, mAP, and per-class tp/fp/fn/tn."""
import numpy as np


def _prf(tp, fp, fn):
    p = tp / np.maximum(tp + fp, 1)
    r = tp / np.maximum(tp + fn, 1)
    return p, r, 2 * p * r / np.maximum(p + r, 1e-9)


def average_precision(scores, truth):
    """Area under the precision-recall curve of one class (precision at each true positive, averaged)."""
    if truth.sum() == 0:
        return 0.0
    order = np.argsort(-scores, kind="stable")
    hits = truth[order] > 0
    tp = np.cumsum(hits)
    return float((tp[hits] / (np.nonzero(hits)[0] + 1)).mean())


class ClassifyMetrics:
    def __init__(self, names, multi_label):
        self.names, self.nc, self.multi_label = names, len(names), multi_label
        self.probs, self.truth = [], []

    def update(self, probs, truth):
        """probs (nc,) for one image; truth: class index (single-label) or multi-hot (nc,)."""
        self.probs.append(np.asarray(probs, np.float64))
        self.truth.append(truth)

    def compute(self, conf=0.5):
        if not self.probs:
            return {}
        probs = np.stack(self.probs)
        if self.multi_label:
            return self._multi(probs, np.stack(self.truth).astype(np.float64) > 0.5, conf)
        return self._single(probs, np.asarray(self.truth, np.int64))

    def _single(self, probs, truth):
        pred = probs.argmax(1)
        cm = np.zeros((self.nc, self.nc), np.int64)
        np.add.at(cm, (pred, truth), 1)
        tp = np.diag(cm).astype(np.float64)
        p, r, f1 = _prf(tp, cm.sum(1) - tp, cm.sum(0) - tp)
        present = cm.sum(0) > 0  # macro means over classes that have ground truth here
        top5 = (np.argsort(-probs, 1)[:, :5] == truth[:, None]).any(1).mean() if self.nc > 5 else None
        res = {"top1": float((pred == truth).mean()), "accuracy": float((pred == truth).mean()),
               "precision": float(p[present].mean()), "recall": float(r[present].mean()),
               "f1": float(f1[present].mean()),
               "per_class": {n: {"precision": float(p[c]), "recall": float(r[c]), "f1": float(f1[c]),
                                 "images": int(cm[:, c].sum())} for c, n in enumerate(self.names)},
               "confusion_matrix": cm.tolist(), "images": len(truth)}
        if top5 is not None:
            res["top5"] = float(top5)
        return res

    def _multi(self, probs, truth, conf):
        pred = probs >= conf
        tp = (pred & truth).sum(0).astype(np.float64)
        fp = (pred & ~truth).sum(0).astype(np.float64)
        fn = (~pred & truth).sum(0).astype(np.float64)
        tn = (~pred & ~truth).sum(0)
        p, r, f1 = _prf(tp, fp, fn)
        ap = np.array([average_precision(probs[:, c], truth[:, c]) for c in range(self.nc)])
        present = truth.sum(0) > 0
        mp, mr, mf1 = _prf(tp.sum(), fp.sum(), fn.sum())
        return {"accuracy": float((pred == truth).all(1).mean()), "mAP": float(ap[present].mean()) if present.any()
                else 0.0, "precision": float(p[present].mean()) if present.any() else 0.0,
                "recall": float(r[present].mean()) if present.any() else 0.0,
                "f1": float(f1[present].mean()) if present.any() else 0.0, "micro_f1": float(mf1), "conf": conf,
                "per_class": {n: {"precision": float(p[c]), "recall": float(r[c]), "f1": float(f1[c]),
                                  "AP": float(ap[c]), "images": int(truth[:, c].sum()), "tp": int(tp[c]),
                                  "fp": int(fp[c]), "fn": int(fn[c]), "tn": int(tn[c])}
                              for c, n in enumerate(self.names)},
                "images": len(truth)}
