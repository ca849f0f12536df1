"""The device a run names (loupe_engine/device.py) and the CUDA path of every task: float16 mixed precision, data
loaders with workers and pinned memory, `test --half`, and DDP over NCCL under torchrun. The CUDA tests skip on a
host without a GPU; the refusals run everywhere."""
import importlib.util
import json
import subprocess

import pytest
import torch

from conftest import engine_env, torchrun_cmd
from inproc import run
from loupe_engine import device
from loupe_engine.config import validate
from loupe_engine.trainer.base import BaseTrainer
from shapes import make_classify, make_segment
from test_ocr import make_text_dataset

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
FAST = ["--set", "imgsz=64", "--set", "epochs=2", "--set", "seed=3", "--set", "model=n"]


def _error(events):
    return [e for e in events if e["event"] == "error"][-1]


@pytest.mark.skipif(torch.cuda.is_available(), reason="this host has CUDA")
def test_cuda_on_a_host_without_it_is_refused_clearly(det_data, tmp_path, monkeypatch):
    train = ["train", "--task", "detect", "--data", f"{det_data}/train.json", "--images", f"{det_data}/images",
             "--out", tmp_path / "r"]
    rc, events, _ = run(*train, "--device", "cuda", check=False)
    e = _error(events)
    assert rc == 2 and e["code"] == "device_unavailable"
    assert "'cuda' is not available" in e["message"] and "devices: cpu" in e["message"]
    # job.json's `device`, then LOUPE_DEVICE, say the same
    spec = tmp_path / "job.json"
    spec.write_text(json.dumps({"task": "detect", "data": f"{det_data}/train.json", "images": f"{det_data}/images",
                                "device": "cuda:1"}))
    rc, events, _ = run("train", "--spec", spec, check=False)
    assert rc == 2 and _error(events)["code"] == "device_unavailable" and "'cuda:1'" in _error(events)["message"]
    monkeypatch.setenv("LOUPE_DEVICE", "cuda")
    rc, events, _ = run("export", "--model", tmp_path / "none.pt", check=False)
    assert rc == 2 and _error(events)["code"] == "device_unavailable"
    # a flag beats the environment
    rc, events, _ = run("export", "--model", tmp_path / "none.pt", "--device", "cpu", check=False)
    assert rc == 2 and _error(events)["code"] != "device_unavailable"


def test_a_device_name_that_is_not_one_is_refused(tmp_path):
    rc, events, _ = run("test", "--model", tmp_path / "m.pt", "--device", "gpu0", check=False)
    assert rc == 2 and _error(events)["code"] == "invalid_parameters" and "cpu, cuda or cuda:N" in \
        _error(events)["message"]
    assert device.resolve("CPU").type == "cpu" and device.resolve("cpu").type == "cpu"


def test_torchrun_processes_take_the_gpu_of_their_local_rank(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert device.launched_world() == (1, 1, 2)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: "X")
    assert device.resolve("cuda") == torch.device("cuda", 1)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(Exception) as e:
        device.resolve("cuda")
    assert e.value.code == "device_unavailable" and "local rank 1" in e.value.message
    with pytest.raises(Exception) as e:
        device.resolve("cuda:0")  # every rank would share one GPU
    assert e.value.code == "invalid_parameters" and "CUDA_VISIBLE_DEVICES" in e.value.message
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert device.launched_world() is None


def test_workers_default_to_several_with_pinned_memory_on_cuda_only():
    def kw(dev, **overrides):
        tr = BaseTrainer.__new__(BaseTrainer)
        tr.cfg, tr.device = validate(overrides), torch.device(dev)
        return tr.loader_kw()

    cpu, gpu = kw("cpu"), kw("cuda")
    assert cpu["num_workers"] == 0 and not cpu["pin_memory"] and cpu["worker_init_fn"] is None
    assert 1 <= gpu["num_workers"] <= 8 and gpu["pin_memory"] and gpu["worker_init_fn"] is not None
    assert kw("cuda", workers=0)["num_workers"] == 0  # a value the user gave is kept, 0 included
    assert kw("cpu", workers=3)["num_workers"] == 3


# ---- CUDA


@cuda
def test_cuda_99_is_refused_with_the_devices_that_exist(tmp_path):
    rc, events, _ = run("test", "--model", tmp_path / "m.pt", "--device", "cuda:99", check=False)
    e = _error(events)
    assert rc == 2 and e["code"] == "device_unavailable" and "cuda:0 (" in e["message"]


def _task_data(task, root):
    if task in ("detect", "obb"):
        from fixtures import make_dataset
        d = make_dataset(str(root), n=20, size=64, obb=task == "obb", seed=1)
        return ["--data", f"{d}/train.json", "--val", f"{d}/val.json", "--images", f"{d}/images"], f"{d}/val.json", \
            f"{d}/images"
    if task == "classify":
        d = make_classify(str(root), n=32)
    elif task == "segment":
        d = make_segment(str(root), n=24)
    else:
        d = make_text_dataset(str(root), n=24)
        return ["--data", f"{d}/train.json", "--val", f"{d}/val.json", "--images", f"{d}/images"], f"{d}/val.json", \
            f"{d}/images"
    return ["--data", f"{d}/all.json", "--images", f"{d}/images"], f"{d}/all.json", f"{d}/images"


@cuda
@pytest.mark.parametrize("task", ["detect", "obb", "classify", "segment", "ocr"])
def test_every_task_trains_in_float16_on_cuda_and_tests_in_half(task, tmp_path):
    args, data, images = _task_data(task, tmp_path / "data")
    out = tmp_path / "run"
    _, events, err = run("train", "--task", task, *args, "--out", out, *FAST, "--device", "cuda")
    s = events[-1]["summary"]
    assert s["train_dtype"] == "float16" and s["gpu_memory_mb"] > 0
    assert "workers auto ->" in err
    epoch = [e for e in events if e["event"] == "epoch"][-1]
    assert epoch["gpu"]["memory_total_bytes"] > 0
    _, events, err = run("test", "--model", out / "best.pt", "--data", data, "--images", images, "--out",
                         tmp_path / "p.json", "--half", "--device", "cuda:0")
    assert events[-1]["summary"]["dtype"] == "float16" and "--half needs CUDA" not in err


@cuda
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
@pytest.mark.skipif(not importlib.util.find_spec("torch.distributed.run"), reason="torchrun is missing")
def test_torchrun_trains_one_job_over_two_gpus_with_nccl(det_data, tmp_path):
    out = tmp_path / "r"
    p = subprocess.run(torchrun_cmd(2, "train", "--task", "detect", "--data", f"{det_data}/train.json", "--val",
                                    f"{det_data}/val.json", "--images", f"{det_data}/images", "--out", out, *FAST,
                                    "--set", "batch=4"),
                       capture_output=True, text=True, env=engine_env(), timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    assert [e["epoch"] for e in events if e["event"] == "epoch"] == [1, 2]
    assert [e["event"] for e in events].count("done") == 1
    assert "torchrun: 2 processes (nccl, rank 0 on cuda:0)" in p.stderr
    assert events[-1]["summary"]["train_dtype"] == "float16" and (out / "best.pt").exists()
