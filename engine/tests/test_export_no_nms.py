"""`export --no-nms`: the graph OpenCV DNN (Debian's 4.6) loads, whose candidates are the engine's own decode and
whose NMS by cv2.dnn.NMSBoxes keeps the engine's boxes (the Python SDK's path)."""
import cv2
import numpy as np
import torch

from conftest import FAST, run_engine
from loupe_engine.data.augment import letterbox
from loupe_engine.models.detector import decode
from loupe_engine.models.load import load_checkpoint
from loupe_engine.nms import postprocess


def _export(model, out, width=96, height=64):
    _, events, err = run_engine("export", "--model", model, "--format", "onnx", "--width", width, "--height", height,
                                "--max-det", 50, "--no-nms", "--out", out)
    return events[-1]["summary"], err


def _compare(best, onnx, size, image):
    """OpenCV's candidates against the engine's decode on the same letterboxed image; returns both."""
    model, _ = load_checkpoint(best, "cpu")
    img, _, _ = letterbox(cv2.imread(image)[..., ::-1], (size[1], size[0]))
    x = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))[None].float() / 255
    with torch.no_grad():
        boxes, scores = decode(model(x), model.stride)
    net = cv2.dnn.readNetFromONNX(str(onnx))
    net.setInput(x.numpy())
    got = net.forward()
    want = torch.cat([boxes, scores], -1).numpy()
    assert got.shape == want.shape
    # float32 in two engines: 1e-3 absolute, or 1e-4 relative on large coordinates (batch-norm statistics
    # re-estimated from a few batches can scale a near-constant channel ~20x, and float noise with it)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    return got[0], boxes[0], scores[0]


def test_no_nms_graph_loads_in_opencv_and_matches_decode(det_run, det_data, tmp_path):
    out = tmp_path / "raw.onnx"
    summary, err = _export(f"{det_run[0]}/best.pt", out)
    assert summary["nms"] is False and "no NMS" in err
    blob = out.read_bytes()
    assert b"NonMaxSuppression" not in blob and b'"nms": false' in blob and b"candidates" in blob
    w, h = summary["input_width"], summary["input_height"]
    got, boxes, scores = _compare(f"{det_run[0]}/best.pt", out, (w, h), f"{det_data}/images/img000.png")
    assert got.shape[1] == 4 + 2  # x1,y1,x2,y2 + one score per class (square, disc)

    # Greedy NMS on the candidates, classes apart (offset), keeps what the engine keeps.
    conf, iou = 0.001, 0.7
    want = postprocess(boxes, scores, conf=conf, iou=iou, max_det=50)
    cls = got[:, 4:].argmax(1)
    score = got[:, 4:].max(1)
    keep = score > conf
    xyxy = got[keep, :4] + cls[keep, None] * 8192.0
    rects = [[float(a), float(b), float(c - a), float(d - b)] for a, b, c, d in xyxy]
    idx = cv2.dnn.NMSBoxes(rects, score[keep].tolist(), conf, iou)
    mine = got[keep][np.array(idx, dtype=int).reshape(-1)][:50]
    assert len(mine) == len(want) > 0
    assert np.abs(mine[:, :4] - want[:, :4].numpy()).max() < 1e-3


def test_no_nms_graph_for_rotated_boxes(obb_data, tmp_path):
    _, events, _ = run_engine("train", "--task", "obb", "--data", f"{obb_data}/all.json", "--images",
                              f"{obb_data}/images", "--out", tmp_path / "r", *FAST)
    assert events[-1]["event"] == "done"
    out = tmp_path / "raw.onnx"
    summary, _ = _export(tmp_path / "r/best.pt", out, 64, 64)
    assert summary["task"] == "obb" and b"cx,cy,w,h,theta,scores[2]" in out.read_bytes()
    got, _, _ = _compare(tmp_path / "r/best.pt", out, (64, 64), f"{obb_data}/images/img000.png")
    assert got.shape[1] == 5 + 2
