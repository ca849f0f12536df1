"""Test-time augmentation (tta.py): views mapped back onto the image's own anchors, through `test` and `export`."""
import json
import math

import pytest
import torch

from conftest import run_engine
from loupe_engine.events import EngineError
from loupe_engine.models.detector import Detector, decode
from loupe_engine.tta import check_mode, predict, rbox_shape, shape_rbox


def _hflip(boxes, scores, shapes, width):
    """Predictions of an image -> those of its mirror image: x mirrored, and each level's anchor columns reversed."""
    b = torch.stack([width - boxes[..., 2], boxes[..., 1], width - boxes[..., 0], boxes[..., 3]], -1)
    return _regrid(b, shapes, lambda g: g.flip(2)), _regrid(scores, shapes, lambda g: g.flip(2))


def _transpose(boxes, scores, shapes):
    b = boxes[..., [1, 0, 3, 2]]
    return _regrid(b, shapes, lambda g: g.transpose(1, 2)), _regrid(scores, shapes, lambda g: g.transpose(1, 2))


def _regrid(t, shapes, f):
    out, i = [], 0
    for h, w in shapes:
        g = f(t[:, i:i + h * w].reshape(t.shape[0], h, w, -1))
        out.append(g.reshape(t.shape[0], h * w, -1))
        i += h * w
    return torch.cat(out, 1)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    m = Detector(3, "p").eval()
    # outputs that vary with the image: the detector's own initialisation starts every anchor near one prior
    for p in m.parameters():
        if p.dim() > 1:
            torch.nn.init.kaiming_normal_(p)
    for head in m.cls:
        head[-1].bias.data.zero_()
    return m


def _shapes(model, x):
    with torch.no_grad():
        return [tuple(int(v) for v in s) for s in model(x)["shapes"]]


def test_off_is_the_plain_prediction(model):
    x = torch.rand(2, 3, 64, 96)
    with torch.no_grad():
        want = decode(model(x), model.stride)
        got = predict(model, x, "off")
    assert all(torch.equal(a, b) for a, b in zip(got, want))


def test_averaged_views_are_equivariant_to_their_own_transforms(model):
    """The prediction of a mirrored (or transposed) image is the mirrored prediction of the image. That holds for
    the average over a group of views only if every view is mapped back onto the right anchors."""
    torch.manual_seed(1)
    wide = torch.rand(1, 3, 64, 96)
    square = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        plain = predict(model, wide, "off")
        mirrored = _hflip(*predict(model, wide.flip(-1), "off"), _shapes(model, wide), 96)
        for a, b in zip(plain, mirrored):  # the untrained model alone is not symmetric
            assert (a - b).abs().max() > 1e-3
        for mode in ("hflip", "flips"):
            want = predict(model, wide, mode)
            got = _hflip(*predict(model, wide.flip(-1), mode), _shapes(model, wide), 96)
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        want = predict(model, square, "dihedral")
        got = _transpose(*predict(model, square.transpose(-1, -2), "dihedral"), _shapes(model, square))
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
        got = _hflip(*predict(model, square.flip(-1), "dihedral"), _shapes(model, square), 64)
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_dihedral_runs_on_wide_inputs(model):
    """Transposed views of a wide image run at the transposed size and come back to the image's anchors."""
    x = torch.rand(1, 3, 64, 96)
    with torch.no_grad():
        boxes, scores = predict(model, x, "dihedral")
        plain_boxes, _ = predict(model, x, "off")
    assert boxes.shape == plain_boxes.shape and scores.shape == (1, plain_boxes.shape[1], 3)


def test_a_rotated_box_is_one_shape_matrix_however_it_is_written():
    """theta + pi, and w and h swapped with a quarter turn, are the same box: the same matrix, and back to the one
    form with w >= h and theta in the detector's range [-pi/4, 3pi/4)."""
    box = torch.tensor([[30.0, 20.0, 24.0, 6.0, 0.4], [5.0, 9.0, 12.0, 3.0, 2.2]])
    for form in (box, box + torch.tensor([0, 0, 0, 0, math.pi]),
                 torch.stack([box[:, 0], box[:, 1], box[:, 3], box[:, 2], box[:, 4] - math.pi / 2], 1)):
        torch.testing.assert_close(rbox_shape(form), rbox_shape(box))
        torch.testing.assert_close(shape_rbox(rbox_shape(form)), box)
    # a box wider than high at an angle outside the range comes back turned by pi; a square keeps its size
    torch.testing.assert_close(shape_rbox(rbox_shape(torch.tensor([[0.0, 0.0, 9.0, 4.0, -1.2]]))),
                               torch.tensor([[0.0, 0.0, 9.0, 4.0, math.pi - 1.2]]))
    assert torch.allclose(shape_rbox(rbox_shape(torch.tensor([[1.0, 2.0, 7.0, 7.0, 0.3]])))[0, :4],
                          torch.tensor([1.0, 2.0, 7.0, 7.0]))
    # the mean of two views that disagree on the angle by a little lies between them, not at a mean of raw angles
    two = rbox_shape(torch.tensor([[0.0, 0.0, 20.0, 4.0, 3 * math.pi / 4 - 0.05],
                                   [0.0, 0.0, 20.0, 4.0, -math.pi / 4 + 0.05 + 1e-3]])).mean(0, keepdim=True)
    t = shape_rbox(two)[0, 4].item()
    assert min(abs(t - 3 * math.pi / 4), abs(t + math.pi / 4)) < 0.01


def _shape_mirror(s, shapes, width):
    """Rotated predictions as rbox_shape rows -> those of the mirror image."""
    m = torch.stack([width - s[..., 0], s[..., 1], s[..., 2], -s[..., 3], s[..., 4]], -1)
    return _regrid(m, shapes, lambda g: g.flip(2))


def _shape_transpose(s, shapes):
    return _regrid(s[..., [1, 0, 4, 3, 2]], shapes, lambda g: g.transpose(1, 2))


def test_rotated_views_are_equivariant_to_their_own_transforms():
    """As for boxes: the averaged views of a mirrored or transposed image are the mirrored or transposed averaged
    views of the image, compared as centres and shape matrices, which hold a box however it is written."""
    torch.manual_seed(2)
    model = Detector(3, "p", rotated=True).eval()
    for p in model.parameters():
        if p.dim() > 1:
            torch.nn.init.kaiming_normal_(p)
    x = torch.rand(1, 3, 64, 64)
    shapes = _shapes(model, x)
    with torch.no_grad():
        plain = rbox_shape(predict(model, x, "off")[0])
        mirrored = _shape_mirror(rbox_shape(predict(model, x.flip(-1), "off")[0]), shapes, 64)
        assert (plain - mirrored).abs().max() > 1e-2  # one view alone is not symmetric
        boxes, scores = predict(model, x, "dihedral")
        want = rbox_shape(boxes)
        mirror = (x.flip(-1), lambda s: _shape_mirror(s, shapes, 64), lambda g: g.flip(2))
        transpose = (x.transpose(-1, -2), lambda s: _shape_transpose(s, shapes), lambda g: g.transpose(1, 2))
        for view, undo, regrid in (mirror, transpose):
            b, sc = predict(model, view, "dihedral")
            torch.testing.assert_close(undo(rbox_shape(b)), want, rtol=1e-4, atol=1e-3)
            torch.testing.assert_close(_regrid(sc, shapes, regrid), scores, rtol=1e-4, atol=1e-4)
    assert boxes.shape == (1, plain.shape[1], 5) and bool((boxes[..., 2] >= boxes[..., 3]).all())


def test_modes_are_checked():
    assert check_mode(None, "obb") == "off" and check_mode("flips", "detect") == "flips"
    assert check_mode("dihedral", "classify") == "dihedral" and check_mode("hflip", "obb") == "hflip"
    with pytest.raises(EngineError, match="must be one of off, hflip, flips, dihedral"):
        check_mode("rotate", "detect")
    assert check_mode("hflip", "segment") == "hflip"
    with pytest.raises(EngineError, match="not for ocr"):
        check_mode("hflip", "ocr")


def test_test_and_export_take_tta(det_run, det_data, tmp_path):
    best = f"{det_run[0]}/best.pt"
    pred = tmp_path / "p.json"
    _, events, _ = run_engine("test", "--model", best, "--data", f"{det_data}/val.json", "--images",
                              f"{det_data}/images", "--out", pred, "--conf", "0.001", "--tta", "flips")
    assert events[-1]["summary"]["tta"] == "flips" and isinstance(json.load(open(pred)), list)

    code, events, _ = run_engine("test", "--model", best, "--data", f"{det_data}/val.json", "--images",
                                 f"{det_data}/images", "--out", tmp_path / "x.json", "--tta", "rotate", check=False)
    assert code == 2 and events[-1]["code"] == "invalid_parameters" and "tta='rotate'" in events[-1]["message"]

    out = tmp_path / "m.onnx"
    _, events, _ = run_engine("export", "--model", best, "--width", 64, "--height", 64, "--max-det", 10,
                              "--tta", "hflip", "--out", out)
    assert events[-1]["summary"]["tta"] == "hflip" and b'"tta": "hflip"' in out.read_bytes()
    # Without NMS (OpenCV) the caller runs the views: the graph is one view, its metadata names them. A wide input
    # cannot run transposed views in a graph of fixed size, so it asks for the 4 flips.
    for (width, height), want in (((64, 64), "dihedral"), ((128, 64), "flips")):
        out = tmp_path / f"raw{width}.onnx"
        _, events, err = run_engine("export", "--model", best, "--width", width, "--height", height, "--max-det", 10,
                                    "--tta", "dihedral", "--no-nms", "--out", out)
        blob = out.read_bytes()
        assert events[-1]["summary"]["tta"] == want and f'"tta": "{want}"'.encode() in blob
        assert b'"strides": [8, 16, 32]' in blob and b"NonMaxSuppression" not in blob
        assert ("needs a square input" in err) == (want == "flips")
