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
