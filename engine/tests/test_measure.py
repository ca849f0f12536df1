"""Measurement fields on exactly drawn shapes (pixel-centre masks computed here, independent of the engine's
rasterizer), polygons and rotated boxes; calibration; tolerances and OK/NG; the `measure` command on labels."""
import json
import math

import numpy as np
import pytest

from inproc import run
from loupe_engine.data.raster import fill_polygon
from loupe_engine.events import EngineError
from loupe_engine.measure.fields import measure_mask, measure_polygon, measure_rbox
from loupe_engine.measure.tolerance import judge_image, parse_tolerances


def rect_mask(hw, cx, cy, length, width, angle):
    ys, xs = np.mgrid[0:hw[0], 0:hw[1]] + 0.5
    t = math.radians(angle)
    u = (xs - cx) * math.cos(t) + (ys - cy) * math.sin(t)
    v = -(xs - cx) * math.sin(t) + (ys - cy) * math.cos(t)
    return ((np.abs(u) < length / 2) & (np.abs(v) < width / 2)).astype(np.uint8)


def disc_mask(hw, cx, cy, r):
    ys, xs = np.mgrid[0:hw[0], 0:hw[1]] + 0.5
    return (((xs - cx) ** 2 + (ys - cy) ** 2) < r * r).astype(np.uint8)


def angle_diff(a, b):
    return abs((a - b + 90) % 180 - 90)


@pytest.mark.parametrize("length,width,angle", [(60, 24, 0), (60, 24, 30), (48.5, 20.2, 117), (70, 10, 90)])
def test_rotated_rectangle_mask(length, width, angle):
    m = measure_mask(rect_mask((120, 140), 70.3, 60.6, length, width, angle))
    assert m["area"] == pytest.approx(length * width, rel=0.01)
    # a mask knows edges only to the pixel: an axis-aligned edge moves the centroid by up to half a pixel
    assert m["centroid_x"] == pytest.approx(70.3, abs=0.5) and m["centroid_y"] == pytest.approx(60.6, abs=0.5)
    # caliper sides: exact on edges along the pixel grid, within a pixel on oblique ones (about 0.1 px on average)
    assert abs(m["major_axis"] - length) <= 0.75 and abs(m["minor_axis"] - width) <= 0.75
    assert angle_diff(m["angle"], angle) <= 1.0


@pytest.mark.parametrize("r", [6.0, 15.5, 40.0])
def test_disc_mask(r):
    m = measure_mask(disc_mask((100, 100), 50.25, 49.6, r))
    assert m["area"] == pytest.approx(math.pi * r * r, rel=0.03)
    assert m["major_axis"] == pytest.approx(2 * r, abs=1.0) and m["minor_axis"] == pytest.approx(2 * r, abs=1.0)
    assert m["centroid_x"] == pytest.approx(50.25, abs=0.1) and m["centroid_y"] == pytest.approx(49.6, abs=0.1)


def test_mask_offset_and_calibration():
    m = rect_mask((40, 60), 30, 20, 40, 10, 0)
    crop = m[15:25, 10:50]
    a, b = measure_mask(m), measure_mask(crop, offset=(10, 15), scale=0.05)
    assert b["centroid_x"] == pytest.approx(a["centroid_x"] * 0.05) and b["area"] == pytest.approx(400 * 0.0025)
    assert b["major_axis"] == pytest.approx(2.0) and b["minor_axis"] == pytest.approx(0.5)
    assert measure_mask(np.zeros((5, 5), np.uint8)) is None


def test_polygon_and_rbox_are_exact():
    import cv2
    poly = cv2.boxPoints(((40.5, 30.25), (30, 12), 155)).astype(np.float32)
    m = measure_polygon([poly])
    assert m["area"] == pytest.approx(360, abs=1e-3) and m["major_axis"] == pytest.approx(30, abs=1e-3)
    assert m["minor_axis"] == pytest.approx(12, abs=1e-3) and angle_diff(m["angle"], 155) < 1e-3
    assert (m["centroid_x"], m["centroid_y"]) == pytest.approx((40.5, 30.25), abs=1e-4)
    r = measure_rbox(10, 20, 4, 9, 30.0, scale=2.0)  # h is the long side: the major axis turns by 90 degrees
    assert r == pytest.approx({"area": 144, "major_axis": 18, "minor_axis": 8, "angle": 120, "centroid_x": 20,
                               "centroid_y": 40})


def test_engine_rasterizer_fills_pixel_centres_exactly():
    import cv2
    for angle in (0, 23, 67.5):
        poly = cv2.boxPoints(((33.3, 28.9), (30.5, 14.2), angle)).astype(np.float32)
        got = fill_polygon(np.zeros((64, 70), np.uint8), [poly])
        assert (got == rect_mask((64, 70), 33.3, 28.9, 30.5, 14.2, angle)).all()


def test_tolerances_judge_objects_counts_and_angles():
    tol = parse_tolerances({"count": {"min": 1, "max": 2},
                            "fields": {"major_axis": {"nominal": 10, "tol": 0.5}, "angle": {"min": 170, "max": 10}},
                            "classes": {"pin": {"count": {"min": 1}, "fields": {"major_axis": {"max": 3}}}}})
    base = {"area": 1, "minor_axis": 1, "centroid_x": 0, "centroid_y": 0}
    objs = [{"label": "part", "index": 0, "measure": {**base, "major_axis": 10.4, "angle": 175}},
            {"label": "pin", "index": 1, "measure": {**base, "major_axis": 2.5, "angle": 4}}]
    ok, reasons, counts = judge_image(objs, tol, ["part", "pin"])
    assert ok and not reasons and counts == {"part": 1, "pin": 1}
    objs[0]["measure"]["angle"] = 30
    objs.append({"label": "part", "index": 2, "measure": {**base, "major_axis": 11, "angle": 0}})
    ok, reasons, _ = judge_image(objs, tol, ["part", "pin"])
    assert not ok and objs[0]["failed"] == ["angle"] and objs[2]["failed"] == ["major_axis"] and objs[1]["ok"]
    assert any("count 3" in r for r in reasons)
    ok, reasons, _ = judge_image([], tol, ["part", "pin"])
    assert not ok and any("pin count 0" in r for r in reasons) and any("count 0" in r for r in reasons)
    with pytest.raises(EngineError) as e:
        parse_tolerances({"fields": {"length": {"max": 1}, "area": {"nominal": 3}}, "count": [1, 2], "bogus": 1})
    assert len(e.value.message.split("; ")) == 4


def test_measure_command_on_labels(tmp_path):
    """Golden-sample labels: a 40x20 part rotated 30 degrees passes, a 44x20 one fails on its major axis."""
    import cv2
    images, anns = [], []
    for i, length in enumerate((40, 44)):
        poly = cv2.boxPoints(((50, 40), (length, 20), 30)).reshape(-1).tolist()
        images.append({"id": i + 1, "file_name": f"{i}.png", "width": 100, "height": 80})
        anns.append({"id": i + 1, "image_id": i + 1, "category_id": 1, "segmentation": [poly]})
    anns.append({"id": 9, "image_id": 1, "category_id": 2, "rbox": [20, 20, 6, 3, 0]})
    (tmp_path / "d.json").write_text(json.dumps({"images": images, "annotations": anns, "categories": [
        {"id": 1, "name": "part"}, {"id": 2, "name": "pin"}]}))
    tol = {"mm_per_px": 0.1, "classes": {"part": {"fields": {"major_axis": {"nominal": 4.0, "tol": 0.1},
                                                             "angle": {"nominal": 30, "tol": 1}}}}}
    (tmp_path / "t.json").write_text(json.dumps(tol))
    _, events, _ = run("measure", "--data", tmp_path / "d.json", "--tolerances", tmp_path / "t.json",
                       "--out", tmp_path / "m.json")
    res = json.load(open(tmp_path / "m.json"))
    assert res["unit"] == "mm" and [im["ok"] for im in res["images"]] == [True, False]
    part = res["images"][0]["objects"][0]["measure"]
    assert part["major_axis"] == pytest.approx(4.0) and part["area"] == pytest.approx(8.0)
    assert res["images"][1]["objects"][0]["failed"] == ["major_axis"]
    assert res["images"][0]["counts"] == {"part": 1, "pin": 1}
    assert events[-1]["summary"] == {**events[-1]["summary"], "images": 2, "ok": 1, "ng": 1}
