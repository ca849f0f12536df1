"""Detection metrics, COCO style: AP at IoU 0.50:0.05:0.95 with 101-point interpolation, per class; plus
precision/recall/F1 at a chosen confidence, the F1-best confidence, a confusion matrix and PR-curve points."""
import numpy as np
import torch

from loupe_engine.losses.iou import box_iou, rbox_iou_matrix

IOUS = np.linspace(0.5, 0.95, 10)
MAX_DETS = 100  # COCO's maxDets: detections counted per image and class


def _top_per_class(cls, score):
    """Mask of the detections COCO evaluates: each class's MAX_DETS best-scored in the image."""
    keep = np.ones(len(cls), bool)
    for c in np.unique(cls):
        idx = np.nonzero(cls == c)[0]
        if len(idx) > MAX_DETS:
            keep[idx[np.argsort(-score[idx], kind="stable")[MAX_DETS:]]] = False
    return keep


def _iou(a, b):
    if a.shape[-1] == 5:
        return rbox_iou_matrix(a, b)
    return box_iou(a, b)


class DetMetrics:
    def __init__(self, nc, names):
        self.nc, self.names = nc, names
        self.tp, self.conf, self.pcls, self.gcls = [], [], [], []
        self.pairs = []  # per image (pred cls, conf, gt cls, iou matrix) for the confusion matrix

    def update(self, pred, gt_boxes, gt_cls):
        """pred (K, G+2) box..., score, class; gt_boxes (M, G); gt_cls (M,) — same coordinate space.

        Matching is COCO's (pycocotools' evaluateImg): per image and class only the MAX_DETS best-scored
        detections count, and detections claim ground truth in descending score order, each taking the unclaimed
        box of its class it overlaps most at or above the IoU threshold. Matching by IoU first instead (the best-
        overlapping detection takes the box whatever its score) makes a confident box a false positive whenever a
        weaker near-duplicate fits better, and scored DeepPCB 0.06 mAP50 below COCO's definition."""
        G = gt_boxes.shape[1]
        pc, score = pred[:, G + 1].long().cpu().numpy(), pred[:, G].cpu().numpy()
        keep = _top_per_class(pc, score)
        pred, pc, score = pred[torch.from_numpy(keep).to(pred.device)], pc[keep], score[keep]
        k = len(pred)
        tp = np.zeros((k, len(IOUS)), bool)
        iou = _iou(pred[:, :G], gt_boxes).cpu().numpy() if k and len(gt_boxes) else np.zeros((k, len(gt_boxes)))
        gc = gt_cls.long().cpu().numpy()
        if k and len(gt_boxes):
            cand = np.where(pc[:, None] == gc[None, :], iou, -1.0)
            order = np.argsort(-score, kind="stable")
            order = order[cand[order].max(1) >= IOUS[0]]  # the rest match nothing at any threshold
            for j, t in enumerate(IOUS):
                free = np.ones(len(gc), bool)
                for i in order:
                    row = np.where(free, cand[i], -1.0)
                    g = int(row.argmax())
                    if row[g] >= t:
                        free[g] = False
                        tp[i, j] = True
        self.tp.append(tp)
        self.conf.append(score)
        self.pcls.append(pc)
        self.gcls.append(gc)
        self.pairs.append((pc, self.conf[-1], gc, iou))

    def merge(self, other):
        """Add another DetMetrics' images (another data-parallel rank's share of a validation)."""
        for name in ("tp", "conf", "pcls", "gcls", "pairs"):
            getattr(self, name).extend(getattr(other, name))

    def compute(self, conf=0.25):
        tp = np.concatenate(self.tp) if self.tp else np.zeros((0, 10), bool)
        cf = np.concatenate(self.conf) if self.conf else np.zeros(0)
        pc = np.concatenate(self.pcls) if self.pcls else np.zeros(0, int)
        gc = np.concatenate(self.gcls) if self.gcls else np.zeros(0, int)
        order = np.argsort(-cf, kind="stable")
        tp, cf, pc = tp[order], cf[order], pc[order]
        ap = np.zeros((self.nc, len(IOUS)))
        rgrid = np.linspace(0, 1, 101)
        pr_curve = np.zeros((self.nc, 101))
        present = np.zeros(self.nc, bool)
        for c in range(self.nc):
            n_gt = int((gc == c).sum())
            sel = pc == c
            if n_gt == 0:
                continue
            present[c] = True
            if not sel.any():
                continue
            tpc = np.cumsum(tp[sel], 0)
            fpc = np.cumsum(~tp[sel], 0)
            recall = tpc / n_gt
            precision = tpc / (tpc + fpc)
            for j in range(len(IOUS)):
                env = np.flip(np.maximum.accumulate(np.flip(precision[:, j])))
                idx = np.searchsorted(recall[:, j], rgrid, side="left")
                q = np.where(idx < len(env), env[np.minimum(idx, len(env) - 1)], 0.0)
                ap[c, j] = q.mean()
                if j == 0:
                    pr_curve[c] = q
        # micro precision / recall / F1 at IoU 0.5 over a confidence sweep
        n_gt_all = max(len(gc), 1)
        grid = np.linspace(0, 1, 101)
        ctp = np.cumsum(tp[:, 0])
        f1s, ps, rs = [], [], []
        for t in grid:
            n = int((cf >= t).sum())
            tpn = ctp[n - 1] if n else 0
            p = tpn / n if n else 0.0
            r = tpn / n_gt_all
            ps.append(p), rs.append(r), f1s.append(2 * p * r / (p + r + 1e-9))
        f1a = np.array(f1s)
        best = int(np.nonzero(f1a >= f1a.max() - 1e-9)[0][-1])  # the highest confidence reaching the best F1
        n = int((cf >= conf).sum())
        tpn = int(ctp[n - 1]) if n else 0
        p = tpn / n if n else 0.0
        r = tpn / n_gt_all
        apc = ap[present]
        return {
            "precision": p, "recall": r, "f1": 2 * p * r / (p + r + 1e-9), "conf": conf,
            "mAP50": float(apc[:, 0].mean()) if len(apc) else 0.0,
            "mAP50_95": float(apc.mean()) if len(apc) else 0.0,
            "per_class": {self.names[c]: {"AP50": float(ap[c, 0]), "AP50_95": float(ap[c].mean()),
                                          "instances": int((gc == c).sum())} for c in range(self.nc)},
            "best_f1_conf": float(grid[best]), "best_f1": float(f1s[best]),
            "pr_curve": {"recall": rgrid[::5].round(2).tolist(),
                         "precision": pr_curve[present].mean(0)[::5].round(4).tolist() if present.any() else []},
            "confusion_matrix": self.confusion(conf),
        }

    def confusion(self, conf, iou_thr=0.45):
        """(nc+1) x (nc+1): rows predicted class, columns true class; the last row/column is background."""
        m = np.zeros((self.nc + 1, self.nc + 1), int)
        for pc, cf, gc, iou in self.pairs:
            keep = cf >= conf
            pc, iou = pc[keep], iou[keep]
            matched_p, matched_g = set(), set()
            if len(pc) and len(gc):
                pi, gi = np.nonzero(iou > iou_thr)
                for k in np.argsort(-iou[pi, gi]):
                    a, b = int(pi[k]), int(gi[k])
                    if a in matched_p or b in matched_g:
                        continue
                    matched_p.add(a), matched_g.add(b)
                    m[pc[a], gc[b]] += 1
            for b in range(len(gc)):
                if b not in matched_g:
                    m[self.nc, gc[b]] += 1
            for a in range(len(pc)):
                if a not in matched_p:
                    m[pc[a], self.nc] += 1
        return m.tolist()
