"""The detector learns: seeded detect and obb runs on drawn squares and discs reach a floor on images they never
trained on, as classify (test_classify) and segment (test_segment) do. The runs are conftest's det_learned and
obb_learned, shared with the tests that need a trained detector (test_obb, the --half checks)."""
import json

from conftest import run_engine

FLOOR = 0.5  # mAP50 on the 8 validation images; the seeded runs reach 1.0 here (conftest.LEARN)


def _check(run, task):
    out, data, events, err = run
    summary = events[-1]["summary"]
    assert events[-1]["event"] == "done" and summary["train_dtype"] == "float32", err[-2000:]
    assert summary["mAP50"] >= FLOOR, f"{task}: mAP50 {summary['mAP50']} below {FLOOR}\n{err[-2000:]}"
    return out, data


def test_detector_learns_squares_and_discs(det_learned, tmp_path):
    out, data = _check(det_learned, "detect")
    # the test command on the same images agrees with the training's final validation
    _, events, _ = run_engine("test", "--model", f"{out}/best.pt", "--data", f"{data}/val.json", "--images",
                              f"{data}/images", "--out", tmp_path / "p.json")
    assert events[-1]["summary"]["mAP50"] >= FLOOR
    found = json.load(open(tmp_path / "p.json"))
    assert {p["category_id"] for p in found} == {1, 2}  # both classes, at the default conf 0.25


def test_obb_detector_learns_rotated_squares_and_discs(obb_learned):
    _check(obb_learned, "obb")
