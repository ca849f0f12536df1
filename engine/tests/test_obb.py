import json

from conftest import FAST, run_engine


def test_obb_train_test_export(obb_data, tmp_path):
    _, events, _ = run_engine("train", "--task", "obb", "--data", f"{obb_data}/all.json", "--images",
                              f"{obb_data}/images", "--out", tmp_path / "r", *FAST, "--set", "degrees=30")
    assert events[-1]["event"] == "done"
    _, events, _ = run_engine("test", "--model", tmp_path / "r/best.pt", "--data", f"{obb_data}/val.json",
                              "--images", f"{obb_data}/images", "--out", tmp_path / "p.json", "--conf", "0.0")
    res = json.load(open(tmp_path / "p.json"))
    assert res and len(res[0]["rbox"]) == 5 and len(res[0]["segmentation"][0]) == 8
    _, events, _ = run_engine("export", "--model", tmp_path / "r/best.pt", "--width", 64, "--height", 64,
                              "--max-det", 20, "--out", tmp_path / "m.onnx")
    assert (tmp_path / "m.onnx").stat().st_size > 1000 and b'"task": "obb"' in (tmp_path / "m.onnx").read_bytes()
