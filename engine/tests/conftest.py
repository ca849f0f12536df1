import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from fixtures import make_dataset  # noqa: E402

ENGINE = os.path.join(os.path.dirname(__file__), "..")
# model=n stated: the default, auto, follows the host (p on a CPU without AMX)
FAST = ["--set", "imgsz=64", "--set", "epochs=1", "--set", "seed=3", "--set", "model=n"]


def engine_env():
    return {**os.environ, "PYTHONPATH": os.path.abspath(ENGINE), "OMP_WAIT_POLICY": "PASSIVE"}


def run_engine(*args, check=True, env=None):
    """Run the CLI as the runner would (`env`: variables added to the engine's); returns (returncode, events,
    stderr)."""
    p = subprocess.run([sys.executable, "-m", "loupe_engine", *map(str, args)], capture_output=True, text=True,
                       env={**engine_env(), **(env or {})}, timeout=300)
    events = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    if check and p.returncode != 0:
        raise AssertionError(f"engine exited {p.returncode}: {p.stderr[-2000:]}")
    return p.returncode, events, p.stderr


def torchrun_cmd(n, *args):
    """The runner's command line for a training over n processes (engine/HARDWARE.md, GPU runners)."""
    return [sys.executable, "-m", "loupe_engine.torchrun", "--standalone", f"--nproc_per_node={n}", "-m",
            "loupe_engine", *map(str, args)]


def seeded_samples(ds, n):
    """The first n samples of a training set, each drawn from its own seed: two sets that differ in one
    augmentation give samples that differ by it alone."""
    out = []
    for i in range(n):
        random.seed(i)
        np.random.seed(i)
        out.append(ds[i])
    return out


@pytest.fixture(scope="session")
def det_data(tmp_path_factory):
    return make_dataset(str(tmp_path_factory.mktemp("det")), n=20, size=64)


@pytest.fixture(scope="session")
def obb_data(tmp_path_factory):
    return make_dataset(str(tmp_path_factory.mktemp("obb")), n=16, size=64, obb=True, seed=1)


@pytest.fixture(scope="session")
def det_run(det_data, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("run"))
    code, events, err = run_engine("train", "--task", "detect", "--data", f"{det_data}/train.json", "--val",
                                   f"{det_data}/val.json", "--images", f"{det_data}/images", "--out", out,
                                   *FAST, "--set", "epochs=2")
    return out, events, err


def check_half_on_cpu(model, data, images, tmp_path, *extra):
    """`test --half` on a CPU (loupe_engine/half.py): float32, said in the log and in the summary's dtype, and the
    same results as without --half."""
    import torch
    from inproc import run
    if torch.cuda.is_available():
        pytest.skip("on CUDA --half is float16")
    outs = []
    for flag in ((), ("--half",)):
        out = tmp_path / f"half{len(flag)}.json"
        _, events, err = run("test", "--model", model, "--data", data, "--images", images, "--out", out, *extra,
                             *flag)
        assert events[-1]["summary"]["dtype"] == "float32"
        assert ("--half needs CUDA" in err) == bool(flag)
        with open(out) as f:
            outs.append(json.load(f))
    assert outs[0] and outs[0] == outs[1]


# A detector that has learned, the same way on every host: float32 in one process (tests that need learning state
# amp=false and procs=1: engine/README.md, LOUPE_CPU_FLAGS), pico, seeded, no mosaic at 64 px. 40 drawn images (32
# to train): with 20 the same steps reached mAP50 0.45-0.63, with 40 and 20 epochs 1.0 for seeds 3, 5 and 7.
LEARN = ["--set", "imgsz=64", "--set", "model=p", "--set", "amp=false", "--set", "procs=1", "--set", "batch=2",
         "--set", "mosaic=0", "--set", "scale=0.2", "--set", "warmup_epochs=0", "--set", "val=false",
         "--set", "seed=3"]


def _learned(tmp_path_factory, task, epochs, **draw):
    data = make_dataset(str(tmp_path_factory.mktemp(f"{task}learn")), n=40, size=64, split_val=8, **draw)
    out = str(tmp_path_factory.mktemp(f"{task}learnrun"))
    _, events, err = run_engine("train", "--task", task, "--data", f"{data}/train.json", "--val", f"{data}/val.json",
                                "--images", f"{data}/images", "--out", out, *LEARN, "--set", f"epochs={epochs}")
    return out, data, events, err


@pytest.fixture(scope="session")
def det_learned(tmp_path_factory):
    """(run folder, data folder, events, stderr) of a detector trained to a floor on squares and discs."""
    return _learned(tmp_path_factory, "detect", 20)


@pytest.fixture(scope="session")
def obb_learned(tmp_path_factory):
    """The same for rotated boxes (rotated squares and discs' boxes; 15 epochs reached mAP50 1.0)."""
    return _learned(tmp_path_factory, "obb", 15, obb=True, seed=1)
