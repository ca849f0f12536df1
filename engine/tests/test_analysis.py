"""Dataset analysis (loupe_engine/analysis) on drawn data whose figures are known by construction."""
import json
import os
import shutil

import cv2
import numpy as np
import pytest

from conftest import run_engine
from fixtures import make_dataset
from shapes import make_classify, make_segment
from loupe_engine.analysis import data, findings, recommend
from loupe_engine.analysis.command import analyse
from loupe_engine.events import EngineError

SIZE = 128
A, B, C = 11, 12, 13  # platform category ids, kept in the output


def _scene(seed):
    """A smooth random colour field with fine noise: distinct images hash tens of bits apart."""
    rng = np.random.RandomState(seed)
    img = cv2.resize(rng.randint(0, 255, (4, 4, 3)).astype(np.uint8), (SIZE, SIZE), interpolation=cv2.INTER_CUBIC)
    img = np.clip(img.astype(int) // 2 + 60 + rng.randint(0, 20, img.shape), 0, 255)
    return img.astype(np.uint8)


def _health(root):
    """20 labelled scenes (16 train, 4 val), each with one 20×10 `a` box and, on even ones, a 6×6 `b` box, all
    centred in the top-left quadrant; then the troubles, one each (see the asserts)."""
    os.makedirs(f"{root}/images", exist_ok=True)
    images, anns = [], []

    def box(img_id, cat, x, y, w, h):
        anns.append({"id": 1000 + len(anns), "image_id": img_id, "category_id": cat, "bbox": [x, y, w, h],
                     "area": w * h})

    def image(i, img, split="train", **extra):
        name = f"p{i:02d}.png"
        cv2.imwrite(f"{root}/images/{name}", img)
        images.append({"id": 500 + i, "file_name": name, "width": 0 if i % 3 else SIZE, "height": SIZE,
                       "split": split, **extra})
        return 500 + i

    for i in range(20):
        img = _scene(i)
        iid = image(i, img, "val" if i >= 16 else "train")
        box(iid, A, 10 + i, 12, 20, 10)
        if i % 2 == 0:
            box(iid, B, 40, 30, 6, 6)
    box(503, A, 30, 40, 0, 8)            # degenerate: no width
    box(505, A, 200, 200, 10, 10)        # degenerate: wholly outside
    box(504, A, -10, 20, 20, 10)         # outside the left edge by 10 px (7.8 %)
    box(506, A, 16.5, 12, 20, 10)        # double of 506's first box (IoU 0.95)
    box(507, C, 20, 20, 16, 16)          # the only `c`: train, no val, rare
    box(508, A, 50, 50, 3, 3)            # tiny: 9 px² at 128
    shutil.copy(f"{root}/images/p01.png", f"{root}/images/p20.png")  # p01 (train) again, in val: leakage
    images.append({"id": 520, "file_name": "p20.png", "width": SIZE, "height": SIZE, "split": "val"})
    noisy = _scene(2).astype(int) + np.random.RandomState(99).randint(-3, 4, (SIZE, SIZE, 3))
    image(21, np.clip(noisy, 0, 255).astype(np.uint8))                        # near duplicate of p02, same split
    image(22, cv2.GaussianBlur(_scene(22), (0, 0), 3))                        # blurred
    image(23, (_scene(23) * 0.15).astype(np.uint8))                           # dark
    image(24, _scene(24), labeled=False)                                      # unlabelled, in no split
    images[-1].pop("split")
    cats = [{"id": A, "name": "a"}, {"id": B, "name": "b"}, {"id": C, "name": "c"}]
    with open(f"{root}/all.json", "w") as f:
        json.dump({"images": images, "annotations": anns, "categories": cats}, f)
    return root


@pytest.fixture(scope="module")
def health(tmp_path_factory):
    return _health(str(tmp_path_factory.mktemp("health")))


@pytest.fixture(scope="module")
def result(health):
    return analyse(f"{health}/all.json", f"{health}/images", "detect", SIZE, cuda=False)


def by_code(result):
    return {f["code"]: f for f in result["findings"]}


def test_counts_per_split_and_class(result):
    c = result["counts"]
    assert c["images"] == 25 and c["labeled"] == 24
    assert c["perSplit"]["images"] == {"train": 19, "val": 5, "test": 0, "none": 1}
    per = {k["id"]: k for k in c["perClass"]}
    # 20 `a` boxes, the outside, double and tiny ones (degenerate ones are not instances)
    assert sum(per[A]["instances"].values()) == 23 and per[A]["images"]["val"] == 4
    assert per[B]["instances"] == {"train": 8, "val": 2, "test": 0, "none": 0}
    assert per[C]["images"] == {"train": 1, "val": 0, "test": 0, "none": 0}
    assert c["instances"] == 34 and c["imbalance"] == 23
    opi = c["objectsPerImage"]
    assert sum(opi["counts"]) == 24 and opi["counts"][0] == 4  # the four trouble images drawn without boxes
    assert result["resolutions"] == [{"width": SIZE, "height": SIZE, "count": 25}]


def test_box_histograms_heatmap_and_tiny_share(result):
    b = result["boxes"]
    assert b["count"] == 34
    for key in ("width", "height", "widthRel", "heightRel", "areaRel", "aspect"):
        h = b[key]
        assert sum(h["counts"]) == 34 and len(h["edges"]) == len(h["counts"]) + 1, key
    # widths: 21 boxes 20 px wide (a, double), 10 of 6 px (b), 1 of 16, 1 of 10 (outside, clipped), 1 of 3
    w = b["width"]
    assert w["counts"][-1] == 21 and w["edges"][-1] == 20  # round 1 px bins up to 20, the last one closed
    cells = np.array(b["heatmap"]["cells"]).reshape(16, 16)
    assert cells.sum() == 34 and cells[:8, :8].sum() == 34
    # shorter side under 8 px at 128: the ten 6×6 `b` boxes and the 3×3 one
    assert b["tinyShare"] == pytest.approx(11 / 34, abs=1e-4) and b["tinyPx"] == 8


def test_findings(result):
    f = by_code(result)
    assert f["unlabeled"]["imageIds"] == [524]
    assert f["duplicate"]["pairs"] == [[501, 520]] and f["duplicate"]["severity"] == "info"
    leak = f["leakage"]
    assert leak["pairs"] == [[501, 520]] and leak["severity"] == "error" and leak["fix"] == "moveLeaked"
    assert f["near_duplicate"]["pairs"] == [[502, 521]]  # the same split: no leakage
    deg = f["degenerate_box"]
    assert sorted(deg["annotationIds"]) == [1030, 1031] and deg["fix"] == "deleteDegenerate"
    assert f["outside_image"]["annotationIds"] == [1032] and "fix" not in f["outside_image"]
    assert f["outside_image"]["severity"] == "error"
    assert f["double_label"]["annotationIds"] == [1033] and f["double_label"]["fix"] == "deleteDoubles"
    assert f["tiny_box"]["annotationIds"] == [1035] and f["tiny_box"]["severity"] == "warning"
    missing = f["class_missing_split"]
    assert missing["severity"] == "error" and missing["params"]["noVal"] == "c" and missing["imageIds"] == [507]
    assert f["rare_class"]["params"]["classes"] == "c"
    assert f["class_imbalance"]["params"]["fewest"] == "c"
    assert f["blurred"]["imageIds"] == [522]
    assert f["dark"]["imageIds"] == [523] and "bright" not in f
    assert [x["severity"] for x in result["findings"]] == sorted(
        (x["severity"] for x in result["findings"]), key=("error", "warning", "info").index)


def _measured(splits, hashes):
    return [{"id": i + 1, "split": s, "labeled": True, "digest": str(i), "phash": h, "blur": 500.0, "luma": 120.0,
             "clipDark": 0.0, "clipBright": 0.0} for i, (s, h) in enumerate(zip(splits, hashes))]


def test_near_twins_leak_unless_most_images_have_one():
    far = [0x0F0F0F0F0F0F0F0F, 0x00FF00FF00FF00FF, 0x3333333333333333, 0x5555555555555555]
    one = {f["code"]: f for f in findings.image_findings(_measured(["train", "val", "train", "val", "test", "none"],
                                                                   [1 << 40, (1 << 40) | 0b111] + far))}
    assert one["near_duplicate"]["pairs"] == [[1, 2]] and one["leakage"]["pairs"] == [[1, 2]]
    assert one["leakage"]["params"] == {"exact": 0, "near": 1}
    # one scene shot again and again: every image within 3 bits of the others, across splits
    scene = {f["code"]: f for f in findings.image_findings(_measured(["train", "val", "test", "train"],
                                                                     [0, 1, 2, 3]))}
    assert scene["near_duplicate"]["count"] == 6 and "leakage" not in scene


def test_recommendations(result):
    recs = {r["code"]: r for r in result["recommendations"]}
    # the 6 px boxes need more than the images' 128 px: capped at the native size
    assert recs["imgsz"]["set"] == {"imgsz": 128} and recs["imgsz"]["params"]["share"] == pytest.approx(32.4)
    assert recs["balance"]["set"] == {"balance": True}
    assert recs["model"]["set"] == {"model": "auto"} and recs["more_images"]["set"] == {}
    assert "rect" not in recs and "tiling" not in recs
    assert result["baseParams"] == {"imgsz": 128, "balance": True, "model": "auto"}


def _boxes(n, image_side, short):
    return [{"degenerate": False, "cx0": 0.0, "cy0": 0.0, "cx1": float(short), "cy1": float(short) * 2,
             "W": image_side, "H": image_side} for _ in range(n)]


def test_image_size_rule():
    # 12 px objects on 1000 px images reach 8 px at 8 / 0.012 = 667 px: 672
    r, = recommend.image_size(_boxes(50, 1000, 12), 320)
    assert r["code"] == "imgsz" and r["set"] == {"imgsz": 672} and r["params"]["share"] == 100
    # 4 px objects on 4000 px images need 8000 px: tiles of the native images
    r, = recommend.image_size(_boxes(50, 4000, 4), 640)
    assert r["code"] == "tiling" and r["set"] == {"imgsz": 4000, "crop": 640}
    # big objects: the smallest size offered
    r, = recommend.image_size(_boxes(50, 2000, 400), 640)
    assert r["set"] == {"imgsz": 320} and r["params"]["share"] == 0


def test_model_on_cuda(health):
    out = analyse(f"{health}/all.json", f"{health}/images", "detect", SIZE, cuda=True)
    assert {r["code"]: r for r in out["recommendations"]}["model"]["set"] == {"model": "n"}


def test_classification_counts_images(tmp_path):
    root = make_classify(str(tmp_path), n=16)
    out = analyse(f"{root}/all.json", f"{root}/images", "classify", 64, cuda=False)
    assert out["boxes"] is None and out["counts"]["instances"] == 16
    for c in out["counts"]["perClass"]:
        assert c["instances"] == c["images"] and sum(c["images"].values()) == 8
    assert not {"degenerate_box", "outside_image", "tiny_box", "double_label"} & set(by_code(out))
    assert all(r["code"] != "imgsz" for r in out["recommendations"])


def test_rotated_and_polygon_labels(tmp_path):
    # an X of two thin rotated boxes: their bounds coincide, the boxes do not
    a, b = (data._box({"id": i, "category_id": 1, "rbox": [50, 50, 40, 4, ang]}, "obb")
            for i, ang in ((1, 45), (2, 135)))
    assert (a["x0"], a["x1"]) == pytest.approx((b["x0"], b["x1"])) and data.iou_same(a, b) < 0.2
    obb = make_dataset(str(tmp_path / "obb"), n=8, size=64, obb=True)
    out = analyse(f"{obb}/all.json", f"{obb}/images", "obb", 64, cuda=False)
    anns = json.load(open(f"{obb}/all.json"))["annotations"]
    assert out["boxes"]["count"] == len(anns) and "double_label" not in by_code(out)
    seg = make_segment(str(tmp_path / "seg"), n=8)
    out = analyse(f"{seg}/all.json", f"{seg}/images", "segment", 64, cuda=False)
    anns = json.load(open(f"{seg}/all.json"))["annotations"]
    polys = [np.array(x["segmentation"][0]).reshape(-1, 2) for x in anns]
    widths = [float(np.clip(p[:, 0], 0, 64).max() - np.clip(p[:, 0], 0, 64).min()) for p in polys]
    assert sum(out["boxes"]["width"]["counts"]) == len(polys)
    assert out["boxes"]["width"]["edges"][-2] < max(widths) <= out["boxes"]["width"]["edges"][-1]


def test_bad_input(tmp_path):
    (tmp_path / "none.json").write_text(json.dumps({"images": [], "annotations": [], "categories": []}))
    with pytest.raises(EngineError) as e:
        analyse(str(tmp_path / "none.json"), str(tmp_path), "detect", 640, cuda=False)
    assert e.value.code == "empty_dataset"
    (tmp_path / "odd.json").write_text(json.dumps({"images": [{"id": 1}], "categories": []}))
    with pytest.raises(EngineError) as e:
        analyse(str(tmp_path / "odd.json"), str(tmp_path), "detect", 640, cuda=False)
    assert e.value.code == "dataset_invalid"


CONTRACT = {"task", "imgsz", "counts", "resolutions", "boxes", "findings", "recommendations", "baseParams"}


def test_cli_end_to_end(health, tmp_path):
    out = tmp_path / "analysis.json"
    code, events, _ = run_engine("analyze", "--task", "detect", "--data", f"{health}/all.json", "--images",
                                 f"{health}/images", "--out", out, "--imgsz", 128)
    assert code == 0
    kinds = [e["event"] for e in events]
    assert kinds[0] == "phase" and events[0]["phase"] == "analyzing" and kinds[-2:] == ["artifact", "done"]
    assert events[-3] == {"event": "progress", "phase": "analyzing", "done": 25, "total": 25}
    assert events[-2] == {"event": "artifact", "kind": "analysis", "path": str(out)}
    d = json.loads(out.read_text())
    assert set(d) == CONTRACT and d["imgsz"] == 128
    assert set(d["counts"]) == {"images", "labeled", "instances", "perSplit", "perClass", "objectsPerImage",
                                "imbalance"}
    assert set(d["boxes"]) == {"count", "width", "height", "widthRel", "heightRel", "areaRel", "aspect", "heatmap",
                               "tinyShare", "tinyPx"}
    assert events[-1]["summary"] == {"findings": len(d["findings"]), "images": 25}
    for f in d["findings"]:
        assert {"code", "severity", "count", "params", "imageIds"} <= set(f) and len(f["imageIds"]) <= 500


def test_unreadable_image_exits_2(health, tmp_path):
    root = tmp_path / "bad"
    shutil.copytree(health, root)
    (root / "images" / "p05.png").write_bytes(b"not a png")
    # as the runner calls it: job.json with paths relative to the work folder
    (root / "job.json").write_text(json.dumps({"task": "detect", "data": "all.json", "images": "images",
                                               "params": {"imgsz": 96}, "analyze": {"imgsz": 128}}))
    code, events, _ = run_engine("analyze", "--spec", root / "job.json", check=False)
    assert code == 2 and events[-1]["event"] == "error" and events[-1]["code"] == "bad_image"
    assert "p05.png" in events[-1]["message"] and not (root / "analysis.json").exists()
