"""One training over several processes started by torchrun (trainer/parallel.py `train_launched`): on CPUs over
gloo here, on GPUs over NCCL (test_gpu.py). Rank 0 alone speaks and writes; SIGTERM to torchrun cancels every rank
on the same step and the run resumes from last.pt under torchrun."""
import json
import signal
import subprocess

import pytest

from conftest import engine_env, torchrun_cmd

pytest.importorskip("torch.distributed.run", reason="torchrun (torch.distributed.run) is missing")


def _train(det_data, out, *extra):
    return ["train", "--task", "detect", "--data", f"{det_data}/train.json", "--val", f"{det_data}/val.json",
            "--images", f"{det_data}/images", "--out", out, "--set", "imgsz=64", "--set", "seed=5", "--set",
            "batch=4", "--set", "model=n", "--set", "amp=false", "--set", "mosaic=0", *extra]


def _events(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_torchrun_trains_one_job_over_two_cpu_processes_and_resumes(det_data, tmp_path):
    out = tmp_path / "r"
    # three epochs asked; SIGTERM after the first: every rank stops on the same step, last.pt stays resumable
    p = subprocess.Popen(torchrun_cmd(2, *_train(det_data, out, "--set", "epochs=3", "--device", "cpu")),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=engine_env())
    first = []
    for line in p.stdout:
        first.append(json.loads(line))
        if first[-1]["event"] == "epoch":
            p.send_signal(signal.SIGTERM)
            break
    rest, err = p.communicate(timeout=120)
    first += _events(rest)
    assert p.returncode != 0, err[-2000:]
    assert [e["epoch"] for e in first if e["event"] == "epoch"] == [1]  # rank 0 alone: one event per epoch
    assert "torchrun: 2 processes (gloo" in err and err.count("optimizer auto") == 1
    assert (out / "best.pt").exists() and (out / "last.pt").exists()

    # the CPU again: on a host with one GPU, rank 1 would ask for cuda:1 and be refused (seen on an H200)
    done = subprocess.run(torchrun_cmd(2, *_train(det_data, out, "--set", "epochs=3", "--resume", "--device", "cpu")),
                          capture_output=True, text=True, env=engine_env(), timeout=180)
    events = _events(done.stdout)
    assert done.returncode == 0, done.stderr[-2000:]
    epochs = [e["epoch"] for e in events if e["event"] == "epoch"]
    assert epochs and epochs[0] >= 2 and epochs[-1] == 3 and epochs == sorted(set(epochs))
    assert [e["event"] for e in events].count("done") == 1
    assert "resuming from epoch" in done.stderr
    s = events[-1]["summary"]
    assert s["total_epochs"] == 3 and (out / "results.json").exists()
