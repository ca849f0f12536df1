"""Checkpoints are read with torch.load(weights_only=True): a crafted pickle is refused with a clear EngineError
before anything in it runs, and every checkpoint the engine writes (each task, best.pt and last.pt) is made of
the plain types that this restricted loader accepts, so training, resume, test and export still work."""
import os
import pickle
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
from conftest import FAST, run_engine  # noqa: E402
from fixtures import make_dataset  # noqa: E402
from inproc import run  # noqa: E402
from shapes import make_classify, make_segment  # noqa: E402
from test_ocr import make_text_dataset  # noqa: E402

from loupe_engine.events import EngineError  # noqa: E402
from loupe_engine.models.load import load_checkpoint, read_checkpoint  # noqa: E402


class _Payload:
    """Unpickling this creates the marker file: what an attacker's checkpoint would do with a shell command."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def evil_checkpoint(path, marker, zipped=True):
    """A file that looks like a Loupe checkpoint (names, size, model) but runs code when fully unpickled."""
    payload = {"task": "detect", "names": ["a"], "size": "p", "model": {"w": torch.zeros(1)}, "x": _Payload(marker)}
    if zipped:
        torch.save(payload, path)  # the zip format torch.save writes today
    else:
        with open(path, "wb") as f:  # a bare pickle, as older torch.save or a hand-made file
            pickle.dump(payload, f)
    return path


@pytest.mark.parametrize("zipped", [True, False])
def test_a_malicious_pickle_is_refused_and_never_runs(tmp_path, zipped):
    marker = str(tmp_path / "pwned")
    path = evil_checkpoint(str(tmp_path / "evil.pt"), marker, zipped)
    # the same file with the unrestricted loader runs the payload: the test would notice a loader that did
    if zipped:
        probe = str(tmp_path / "probe")
        torch.load(evil_checkpoint(str(tmp_path / "probe.pt"), probe), map_location="cpu")
        assert os.path.isdir(probe)
    with pytest.raises(EngineError) as e:
        read_checkpoint(path)
    assert e.value.code == "model_invalid" and "evil.pt" in e.value.message
    assert ("'posix.mkdir' is not allowed" if zipped else "raw-pickle format") in e.value.message
    with pytest.raises(EngineError) as e:
        load_checkpoint(path)
    assert e.value.code == "model_invalid"
    assert not os.path.exists(marker)


def test_test_export_pretrained_and_resume_refuse_it(tmp_path):
    data = make_dataset(str(tmp_path / "d"), n=12, size=64)
    marker = str(tmp_path / "pwned")
    evil = evil_checkpoint(str(tmp_path / "evil.pt"), marker)
    for args, code in (
        (("test", "--model", evil, "--data", f"{data}/val.json", "--images", f"{data}/images", "--out",
          tmp_path / "p.json"), "model_invalid"),
        (("export", "--model", evil, "--format", "onnx", "--width", 64, "--height", 64, "--max-det", 10, "--out",
          tmp_path / "m.onnx"), "model_invalid"),
        (("train", "--task", "detect", "--data", f"{data}/train.json", "--val", f"{data}/val.json", "--images",
          f"{data}/images", "--out", tmp_path / "r", *FAST, "--set", f"pretrained={evil}"), "model_invalid"),
    ):
        rc, events, _ = run_engine(*args, check=False)
        assert rc == 2, events
        assert events[-1]["event"] == "error" and events[-1]["code"] == code, events[-1]
        assert not os.path.exists(marker)
    # a resume whose last.pt was replaced by the crafted file: refused as a checkpoint that cannot continue
    os.makedirs(tmp_path / "r2", exist_ok=True)
    evil_checkpoint(str(tmp_path / "r2" / "last.pt"), marker)
    rc, events, _ = run_engine("train", "--task", "detect", "--data", f"{data}/train.json", "--val",
                               f"{data}/val.json", "--images", f"{data}/images", "--out", tmp_path / "r2", *FAST,
                               "--resume", check=False)
    assert rc == 2 and events[-1]["code"] == "nothing_to_resume", events[-1]
    assert not os.path.exists(marker)


def _train(tmp_path, task):
    root = str(tmp_path / task)
    if task in ("detect", "obb"):
        data = make_dataset(root, n=12, size=64, obb=task == "obb")
        files = ["--data", f"{data}/train.json", "--val", f"{data}/val.json"]
    elif task == "classify":
        data = make_classify(root, n=16)
        files = ["--data", f"{data}/all.json"]
    elif task == "segment":
        data = make_segment(root, n=12)
        files = ["--data", f"{data}/all.json"]
    else:
        data = make_text_dataset(root, n=12)
        files = ["--data", f"{data}/train.json", "--val", f"{data}/val.json"]
    out = str(tmp_path / f"{task}-run")
    run("train", "--task", task, *files, "--images", f"{data}/images", "--out", out, *FAST, "--set", "model=p",
        "--set", "epochs=1", "--set", "mosaic=0")
    return out


@pytest.mark.parametrize("task", ["detect", "obb", "classify", "segment", "ocr"])
def test_every_checkpoint_the_engine_writes_loads_weights_only(tmp_path, task):
    out = _train(tmp_path, task)
    for name in ("best.pt", "last.pt"):
        ck = read_checkpoint(os.path.join(out, name))
        assert ck["task"] == task and ck["names"] and ck["model"]
    # and a finished run's best.pt starts another training as `pretrained` (the server's copy of a version)
    data = make_dataset(str(tmp_path / "next"), n=12, size=64)
    _, events, err = run("train", "--task", "detect", "--data", f"{data}/train.json", "--val", f"{data}/val.json",
                         "--images", f"{data}/images", "--out", tmp_path / "next-run", *FAST, "--set", "model=p",
                         "--set", "epochs=1", "--set", "mosaic=0", "--set", f"pretrained={out}/best.pt")
    assert "pretrained:" in err and events[-1]["event"] == "done"


def test_auto_takes_the_size_of_the_pretrained_checkpoint(tmp_path):
    # the agent's retrain starts from v1 with model=auto: a size of its own would drop most of v1's weights (an
    # s run here, a size auto never picks on a CPU)
    data = make_dataset(str(tmp_path / "d"), n=12, size=64)
    files = ["--data", f"{data}/train.json", "--val", f"{data}/val.json", "--images", f"{data}/images"]
    run("train", "--task", "detect", *files, "--out", tmp_path / "v1", *FAST, "--set", "model=s",
        "--set", "epochs=1", "--set", "mosaic=0")
    _, events, err = run("train", "--task", "detect", *files, "--out", tmp_path / "v2", *FAST, "--set", "model=auto",
                         "--set", "epochs=1", "--set", "mosaic=0", "--set", f"pretrained={tmp_path}/v1/best.pt")
    assert "model auto -> s (the size of the pretrained checkpoint)" in err and events[-1]["event"] == "done"
    assert read_checkpoint(str(tmp_path / "v2" / "best.pt"))["size"] == "s"
