"""Smoke tests through the command line, as the runner and users call it (tiny images, 1-2 epochs)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction

import cv2
import numpy as np
import torch

from conftest import FAST, check_half_on_cpu, engine_env, run_engine
from loupe_engine.cpu import has_amx
from loupe_engine.export import input_size


def kinds(events):
    return [e["event"] for e in events]


def test_train_emits_events_and_writes_checkpoints(det_run):
    out, events, err = det_run
    assert kinds(events)[0] == "phase" and kinds(events)[-1] == "done"
    epochs = [e for e in events if e["event"] == "epoch"]
    assert [e["epoch"] for e in epochs] == [1, 2] and all("eta_s" in e and "mAP50" in e["metrics"] for e in epochs)
    for name in ("best.pt", "last.pt", "results.json"):
        assert os.path.isfile(os.path.join(out, name))
    s = events[-1]["summary"]
    for key in ("precision", "recall", "f1", "mAP50", "mAP50_95", "best_val_loss", "inference_ms", "fps",
                "model_size_mb", "total_epochs", "best_epoch", "suggested_conf", "gpu_memory_mb"):
        assert key in s
    # amp (on by default) trains in bfloat16 on a CPU with AMX; elsewhere the note says CUDA is needed
    if has_amx():
        assert "AMP on CPU: training in bfloat16" in err and s["train_dtype"] == "bfloat16"
    else:
        assert "AMP needs CUDA or a CPU with AMX" in err and s["train_dtype"] == "float32"
    assert not any(line.startswith("{") for line in err.splitlines())  # logs stay off stdout's JSON lines


def test_test_writes_coco_results_and_metrics(det_run, det_data, tmp_path):
    out = tmp_path / "pred.json"
    _, events, err = run_engine("test", "--model", f"{det_run[0]}/best.pt", "--data", f"{det_data}/val.json",
                                "--images", f"{det_data}/images", "--out", out, "--conf", "0.001", "--iou", "0.6",
                                "--agnostic", "--half")
    res = json.load(open(out))
    assert isinstance(res, list)
    if res:
        assert set(res[0]) == {"image_id", "category_id", "bbox", "score"} and len(res[0]["bbox"]) == 4
    summary = events[-1]["summary"]
    assert "mAP50" in summary and "confusion_matrix" in summary and "suggested_conf" in summary
    assert os.path.isfile(str(out).replace(".json", ".metrics.json"))
    assert "mAP50" in err
    progress = [e for e in events if e["event"] == "progress"]
    total = len(json.load(open(f"{det_data}/val.json"))["images"])
    assert progress and progress[-1] == {"event": "progress", "phase": "testing", "done": total, "total": total}


def test_half_on_cpu_is_float32(det_run, det_data, tmp_path):
    check_half_on_cpu(f"{det_run[0]}/best.pt", f"{det_data}/val.json", f"{det_data}/images", tmp_path, "--conf",
                      "0.001")


def test_export_onnx_with_metadata(det_run, tmp_path):
    out = tmp_path / "m.onnx"
    _, events, _ = run_engine("export", "--model", f"{det_run[0]}/best.pt", "--format", "onnx", "--width", 96,
                              "--height", 64, "--max-det", 10, "--out", out)
    blob = out.read_bytes()
    assert b"NonMaxSuppression" in blob and b"loupe" in blob and b'"input_width": 64' in blob
    assert events[-1]["summary"]["input_width"] == 64 and events[-1]["summary"]["input_height"] == 64


def test_export_rejects_bad_fields(det_run, tmp_path):
    code, events, _ = run_engine("export", "--model", f"{det_run[0]}/best.pt", "--width", 0, "--height", -1,
                                 "--format", "tflite", "--out", tmp_path / "x.onnx", check=False)
    assert code == 2 and events[-1]["event"] == "error"
    assert len(events[-1]["message"].split("; ")) == 4  # max-det missing, width, height, format


def test_spec_and_workdir(det_data, tmp_path):
    spec = {"task": "detect", "data": "train.json", "val": "val.json", "images": "images",
            "params": {"imgsz": 64, "epochs": 1, "mosaic": 0.5, "mixup": 0.3, "cutmix": 0.3, "copy_paste": 0.3,
                       "erasing": 0.3, "auto_augment": 0.5, "bgr": 0.5, "flipud": 0.5, "transpose": 0.5, "degrees": 10,
                       "shear": 5, "perspective": 0.0005, "cos_lr": True, "optimizer": "SGD", "freeze": 2,
                       "dropout": 0.1, "multi_scale": True, "single_cls": True, "deterministic": True, "fraction": 0.8,
                       "cache": True, "amp": False, "label_smoothing": 0.1}}
    work = tmp_path / "w"
    shutil.copytree(det_data, work)
    (work / "job.json").write_text(json.dumps(spec))
    code, events, _ = run_engine("train", "--spec", work / "job.json", "--workdir", work, check=False)
    assert code == 2 and "unknown parameter 'label_smoothing'" in events[-1]["message"]
    del spec["params"]["label_smoothing"]
    (work / "job.json").write_text(json.dumps(spec))
    _, events, err = run_engine("train", "--spec", work / "job.json", "--workdir", work)
    assert os.path.isfile(work / "run" / "best.pt") and events[-1]["event"] == "done"
    assert "cos_lr=true overrides" in err
    assert events[-1]["summary"]["train_dtype"] == "float32" and "AMP" not in err  # amp=false: float32, no note


def _broken(det_data, tmp_path, mutate):
    d = json.load(open(f"{det_data}/train.json"))
    mutate(d)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d))
    code, events, err = run_engine("train", "--task", "detect", "--data", p, "--val", f"{det_data}/val.json",
                                   "--images", f"{det_data}/images", "--out", tmp_path / "r", *FAST, check=False)
    assert code == 2 and "Traceback" not in err
    return events[-1]


def test_bad_input_gives_clear_messages(det_data, tmp_path):
    e = _broken(det_data, tmp_path, lambda d: d.update(images=[], annotations=[]))
    assert e["code"] == "empty_dataset"
    e = _broken(det_data, tmp_path, lambda d: d["annotations"][0].update(bbox=[50, 50, 40, 40]))
    assert e["code"] == "dataset_invalid" and "outside image" in e["message"]
    e = _broken(det_data, tmp_path, lambda d: d["categories"].append({"id": 9, "name": "ghost"}))
    assert e["code"] == "category_without_boxes" and "ghost" in e["message"]
    broken = tmp_path / "imgs"
    shutil.copytree(f"{det_data}/images", broken)
    (broken / "img000.png").write_bytes(b"not a png")
    code, events, err = run_engine("train", "--task", "detect", "--data", f"{det_data}/train.json", "--val",
                                   f"{det_data}/val.json", "--images", broken, "--out", tmp_path / "r2", *FAST,
                                   check=False)
    assert code == 2 and events[-1]["code"] == "bad_image" and "img000.png" in events[-1]["message"]


def _start(det_data, out, epochs):
    return subprocess.Popen([sys.executable, "-m", "loupe_engine", "train", "--task", "detect", "--data",
                             f"{det_data}/train.json", "--val", f"{det_data}/val.json", "--images",
                             f"{det_data}/images", "--out", str(out), "--set", "imgsz=64", "--set",
                             f"epochs={epochs}", "--set", "seed=5"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=engine_env())


def _wait_epoch(p, n):
    for line in p.stdout:
        if json.loads(line)["event"] == "epoch" and json.loads(line)["epoch"] >= n:
            return
    raise AssertionError("no epoch event")


def test_sigterm_cancels_with_130(det_data, tmp_path):
    p = _start(det_data, tmp_path / "r", 50)
    _wait_epoch(p, 1)
    p.send_signal(signal.SIGTERM)
    rest = p.stdout.read()
    assert p.wait(timeout=60) == 130
    assert '"cancelled"' in rest
    assert os.path.isfile(tmp_path / "r" / "last.pt")


def test_resume_after_kill_9(det_data, tmp_path):
    p = _start(det_data, tmp_path / "r", 3)
    _wait_epoch(p, 1)
    p.kill()
    p.wait()
    time.sleep(0.2)
    _, events, err = run_engine("train", "--task", "detect", "--data", f"{det_data}/train.json", "--val",
                                f"{det_data}/val.json", "--images", f"{det_data}/images", "--out", tmp_path / "r",
                                "--set", "imgsz=64", "--set", "epochs=3", "--set", "seed=5", "--resume")
    done = [e["epoch"] for e in events if e["event"] == "epoch"]
    assert done and done[0] >= 2 and done[-1] == 3 and "resuming from epoch" in err
    assert events[-1]["summary"]["total_epochs"] == 3


def test_rect_training_on_wide_images(tmp_path):
    from fixtures import make_dataset
    d = make_dataset(str(tmp_path / "wide"), n=10, size=96, height=64, split_val=3)
    run_engine("train", "--task", "detect", "--data", f"{d}/all.json", "--images", f"{d}/images",
               "--out", tmp_path / "r", *FAST, "--set", "rect=true", "--set", "imgsz=96", "--set", "val=false")
    img = cv2.imread(f"{d}/images/img000.png")
    assert img.shape == (64, 96, 3) and np.isfinite(img).all()


def test_time_budget_stops_training(det_data, tmp_path):
    _, events, err = run_engine("train", "--task", "detect", "--data", f"{det_data}/train.json", "--val",
                                f"{det_data}/val.json", "--images", f"{det_data}/images", "--out", tmp_path / "r",
                                "--set", "imgsz=64", "--set", "epochs=500", "--max-seconds", "1")
    s = events[-1]["summary"]
    assert s["stopped_by"] == "time" and s["total_epochs"] < 500


def test_spec_drives_test_and_export(det_run, det_data, tmp_path):
    spec = {"model": f"{det_run[0]}/best.pt", "data": f"{det_data}/val.json", "images": f"{det_data}/images",
            "test": {"conf": 0.01, "iou": 0.5}, "export": {"format": "onnx", "width": 64, "height": 64,
                                                          "max_det": 5}}
    (tmp_path / "job.json").write_text(json.dumps(spec))
    _, events, _ = run_engine("test", "--spec", tmp_path / "job.json", "--workdir", tmp_path / "w")
    assert events[-1]["summary"]["conf"] == 0.01 and os.path.isfile(tmp_path / "w" / "predictions.json")
    _, events, _ = run_engine("export", "--spec", tmp_path / "job.json", "--workdir", tmp_path / "w")
    assert os.path.isfile(tmp_path / "w" / "model.onnx")
    spec["test"]["confidence"] = 0.3
    (tmp_path / "job.json").write_text(json.dumps(spec))
    code, events, _ = run_engine("test", "--spec", tmp_path / "job.json", check=False)
    assert code == 2 and "confidence" in events[-1]["message"]


def test_pico_size_auto_on_cpu_with_crop_exports(det_data, tmp_path):
    """model=auto picks the pico size for a one-epoch run (n needs a budget of epochs, test_auto_model.py);
    pico trains on crop tiles and exports like the other sizes."""
    _, events, err = run_engine("train", "--task", "detect", "--data", f"{det_data}/train.json", "--val",
                                f"{det_data}/val.json", "--images", f"{det_data}/images", "--out", tmp_path / "r",
                                *FAST, "--set", "model=auto", "--set", "amp=false", "--set", "crop=32",
                                "--set", "epochs=1")
    assert "model auto -> p" in err
    assert torch.load(tmp_path / "r" / "best.pt", map_location="cpu")["size"] == "p"
    run_engine("export", "--model", tmp_path / "r" / "best.pt", "--format", "onnx", "--width", "64", "--height", "64",
               "--max-det", "5", "--out", tmp_path / "p.onnx")
    assert (tmp_path / "p.onnx").stat().st_size > 1000


def test_engine_stops_when_its_runner_is_killed(det_data, tmp_path):
    # The platform's runner passes its pid; a kill -9 of the runner (no SIGTERM reaches the engine) must not leave
    # an orphan training on. A shell stands in for the runner: it starts the engine and is killed with SIGKILL.
    out = tmp_path / "events.jsonl"
    cmd = (f"LOUPE_PARENT_PID=$$ {sys.executable} -m loupe_engine train --task detect --data {det_data}/train.json "
           f"--val {det_data}/val.json --images {det_data}/images --out {tmp_path / 'r'} --set imgsz=64 "
           f"--set epochs=50 --set seed=5 > {out} 2>/dev/null & wait")
    runner = subprocess.Popen(["sh", "-c", cmd], env=engine_env())
    deadline = time.time() + 60
    while '"epoch"' not in (out.read_text() if out.exists() else ""):
        assert time.time() < deadline, "no epoch event"
        time.sleep(0.2)
    runner.kill()
    runner.wait()
    deadline = time.time() + 30
    while '"cancelled"' not in out.read_text():
        assert time.time() < deadline, "the engine kept training after its runner died"
        time.sleep(0.2)


def test_export_input_size_is_exact():
    """The long side becomes imgsz, and no float rounding adds a stride: 200x200 of a 224 px model is 224x224."""
    assert input_size(200, 200, 224) == (224, 224)
    assert input_size(1280, 960, 640) == (640, 480) and input_size(960, 1280, 640) == (480, 640)
    assert input_size(1000, 10, 640) == (640, 32)
    for imgsz in (64, 224, 640, 704):
        for w in range(1, 400, 7):
            for h in (w, w // 2 + 1, 3 * w):
                got = input_size(w, h, imgsz)
                exact = [int(Fraction(v * imgsz, max(w, h) * 32).__ceil__()) * 32 for v in (w, h)]
                assert list(got) == exact and max(got) == -(-imgsz // 32) * 32, (w, h, imgsz, got)
