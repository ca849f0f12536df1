import json
import shutil

from conftest import check_half_on_cpu, run_engine


def test_obb_train_test_export(obb_data, obb_learned, tmp_path):
    # the rotated detector test_learning checks (conftest.obb_learned), tested on obb_data's images
    (tmp_path / "r").mkdir()
    shutil.copy(f"{obb_learned[0]}/best.pt", tmp_path / "r/best.pt")
    _, events, _ = run_engine("test", "--model", tmp_path / "r/best.pt", "--data", f"{obb_data}/val.json",
                              "--images", f"{obb_data}/images", "--out", tmp_path / "p.json", "--conf", "0.0")
    res = json.load(open(tmp_path / "p.json"))
    assert res and len(res[0]["rbox"]) == 5 and len(res[0]["segmentation"][0]) == 8
    _, events, _ = run_engine("export", "--model", tmp_path / "r/best.pt", "--width", 64, "--height", 64,
                              "--max-det", 20, "--out", tmp_path / "m.onnx")
    assert (tmp_path / "m.onnx").stat().st_size > 1000 and b'"task": "obb"' in (tmp_path / "m.onnx").read_bytes()
    # Test-time augmentation: the views' centres and shape matrices averaged, in test, in measure (the same boxes)
    # and in both exported graphs (NMS inside; without NMS the metadata names the views for the caller)
    data = ("--data", f"{obb_data}/val.json", "--images", f"{obb_data}/images")
    _, events, _ = run_engine("test", "--model", tmp_path / "r/best.pt", *data, "--out", tmp_path / "t.json", "--conf",
                              "0.001", "--tta", "dihedral")
    assert events[-1]["summary"]["tta"] == "dihedral"
    viewed = json.load(open(tmp_path / "t.json"))
    assert viewed and all(r["rbox"][2] >= r["rbox"][3] and -45 <= r["rbox"][4] < 135 for r in viewed)
    assert [r["score"] for r in viewed] != [r["score"] for r in res if r["score"] > 0.001]
    _, events, _ = run_engine("measure", "--model", tmp_path / "r/best.pt", *data, "--conf", "0.001", "--tta",
                              "dihedral", "--out", tmp_path / "meas.json")
    measured = [o for im in json.load(open(tmp_path / "meas.json"))["images"] for o in im["objects"]]
    assert len(measured) == len(viewed)
    for flag in ((), ("--no-nms",)):
        out = tmp_path / f"tta{len(flag)}.onnx"
        _, events, _ = run_engine("export", "--model", tmp_path / "r/best.pt", "--width", 64, "--height", 64,
                                  "--max-det", 20, "--tta", "dihedral", *flag, "--out", out)
        assert events[-1]["summary"]["tta"] == "dihedral" and b'"tta": "dihedral"' in out.read_bytes()


def test_half_on_cpu_is_float32(obb_learned, tmp_path):
    out, data, _, _ = obb_learned
    check_half_on_cpu(f"{out}/best.pt", f"{data}/val.json", f"{data}/images", tmp_path, "--conf", "0.001")
