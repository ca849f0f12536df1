import math

import numpy as np
import pytest
import torch

from loupe_engine.losses.iou import box_iou, ciou, probiou, rbox_corners
from loupe_engine.metrics import DetMetrics
from loupe_engine.nms import postprocess


def test_box_iou_and_ciou():
    a = torch.tensor([[0.0, 0, 10, 10]])
    b = torch.tensor([[0.0, 0, 10, 10], [5.0, 0, 15, 10], [20.0, 20, 30, 30]])
    assert torch.allclose(box_iou(a, b)[0], torch.tensor([1.0, 1 / 3, 0.0]), atol=1e-4)
    assert ciou(a[0], a[0]).item() > 0.999
    assert ciou(a[0], b[2]).item() < 0


def test_probiou_is_rotation_aware():
    r = torch.tensor([[50.0, 50, 40, 10, 0.0]])
    same = torch.tensor([[50.0, 50, 10, 40, math.pi / 2]])  # w/h swapped + 90 degrees: the same box
    crossed = torch.tensor([[50.0, 50, 40, 10, math.pi / 2]])
    assert probiou(r, r).item() > 0.99
    assert probiou(r, same).item() > 0.99
    assert probiou(r, crossed).item() < 0.5


def test_rotated_corners():
    c = rbox_corners(torch.tensor([[10.0, 10, 4, 2, math.pi / 2]]))[0]
    assert torch.allclose(c.min(0).values, torch.tensor([9.0, 8.0]), atol=1e-5)


def test_nms_keeps_one_of_duplicates_and_respects_classes():
    boxes = torch.tensor([[0.0, 0, 10, 10], [0.5, 0, 10.5, 10], [0.0, 0, 10, 10], [30.0, 30, 40, 40]])
    scores = torch.tensor([[0.9, 0.0], [0.8, 0.0], [0.0, 0.7], [0.6, 0.0]])
    out = postprocess(boxes, scores, conf=0.1, iou=0.5)
    assert out[:, 5].tolist() == [0, 1, 0] and len(out) == 3
    assert len(postprocess(boxes, scores, conf=0.1, iou=0.5, agnostic=True)) == 2
    rb = torch.tensor([[5.0, 5, 10, 4, 0.3], [5.2, 5, 10, 4, 0.31], [30.0, 30, 10, 4, 1.0]])
    out = postprocess(rb, scores[[0, 1, 3]], conf=0.1, iou=0.5)
    assert len(out) == 2 and out.shape[1] == 7


def test_text_lines_lose_their_pieces_whatever_their_class():
    """A line's shorter copies ("LOT 22-299" inside "LOT 22-2996R") can overlap it by little ProbIoU, so rotated
    NMS keeps them; with `lines` (OCR) they go, while the next line, a crossing box and a word beside it stay."""
    t = 0.1  # the line's direction; its pieces written with w and h swapped and a quarter turn too
    line = [100.0, 50, 160, 20, t]
    along = lambda d: [100.0 + d * math.cos(t), 50 + d * math.sin(t)]  # noqa: E731
    boxes = torch.tensor([
        line,
        [*along(-30), 95, 18, t + 0.05],  # the line's first 60 %, under another class
        [*along(30), 18, 90, t + math.pi / 2],  # its last 56 %, written tall
        [*along(0)[:1], along(0)[1] + 30, 160, 20, t],  # the next line down: apart across the line
        [*along(0), 160, 20, t + 0.6],  # a crossing box, 34 degrees off
        [*along(120), 70, 20, t],  # a word beside the line: 10 px of 70 shared
    ])
    scores = torch.zeros(6, 2)
    scores[:, 0] = torch.tensor([0.9, 0.0, 0.7, 0.6, 0.5, 0.4])
    scores[1, 1] = 0.8
    assert probiou(boxes[:1], boxes[1:3]).max() < 0.7  # what ProbIoU alone keeps
    assert len(postprocess(boxes, scores, conf=0.1, iou=0.7, agnostic=True)) == 6
    kept = postprocess(boxes, scores, conf=0.1, iou=0.7, lines=True)
    assert sorted(round(v, 1) for v in kept[:, 5].tolist()) == [0.4, 0.5, 0.6, 0.9]


def test_metrics_perfect_and_empty():
    m = DetMetrics(2, ["a", "b"])
    gt = torch.tensor([[0.0, 0, 10, 10], [20.0, 20, 30, 30]])
    cls = torch.tensor([0, 1])
    m.update(torch.tensor([[0.0, 0, 10, 10, 0.9, 0], [20.0, 20, 30, 30, 0.8, 1]]), gt, cls)
    m.update(torch.zeros(0, 6), torch.zeros(0, 4), torch.zeros(0))
    r = m.compute(conf=0.25)
    assert r["mAP50"] > 0.99 and r["mAP50_95"] > 0.99 and r["f1"] > 0.99
    assert np.array(r["confusion_matrix"]).trace() == 2
    assert 0 < r["best_f1_conf"] <= 0.8


def test_metrics_match_in_score_order_as_coco_does():
    # a confident box at IoU 0.78 and a weak near-duplicate at IoU 1.0 on one ground-truth box: COCO lets the
    # confident one claim it (AP50 1.0); matching by IoU first would make it a false positive ranked first (0.5)
    m = DetMetrics(1, ["a"])
    gt, cls = torch.tensor([[0.0, 0, 10, 10]]), torch.tensor([0])
    m.update(torch.tensor([[0.0, 0, 10, 7.8, 0.9, 0], [0.0, 0, 10, 10, 0.3, 0]]), gt, cls)
    r = m.compute(conf=0.25)
    assert r["mAP50"] == pytest.approx(1.0)
    # above IoU 0.78 only the weak box matches: 6 thresholds at 1.0, 4 (0.80..0.95) at 0.5
    assert r["mAP50_95"] == pytest.approx(0.8)


def test_metrics_count_each_class_best_100_per_image():
    # COCO's maxDets: 100 confident false boxes push a weak true one out of the evaluation
    far = torch.tensor([[100.0 + i, 100, 110 + i, 110, 0.9, 0] for i in range(100)])
    m = DetMetrics(1, ["a"])
    m.update(torch.cat([far, torch.tensor([[0.0, 0, 10, 10, 0.1, 0]])]), torch.tensor([[0.0, 0, 10, 10]]),
             torch.tensor([0]))
    assert m.compute()["mAP50"] == 0.0
