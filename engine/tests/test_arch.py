"""Checkpoints record the architecture they were trained with, so a size whose layers change (p, deepened) still
loads the checkpoints written before, and a run of the old layers is refused on resume with a clear message."""
import json
import shutil

import torch

from conftest import run_engine
from loupe_engine.models.backbone import LEGACY, SIZES
from loupe_engine.models.detector import Detector
from loupe_engine.models.load import load_checkpoint


def test_checkpoint_records_its_architecture(det_run):
    ck = torch.load(f"{det_run[0]}/best.pt")
    assert ck["size"] == "n" and tuple(ck["arch"]) == SIZES["n"]


def test_old_pico_checkpoint_without_arch_still_tests(det_run, det_data, tmp_path):
    ck = torch.load(f"{det_run[0]}/best.pt")
    torch.manual_seed(0)
    old = Detector(len(ck["names"]), "p", arch=LEGACY["p"]).eval()
    assert LEGACY["p"] != SIZES["p"]
    del ck["arch"]
    ck.update(size="p", model=old.state_dict())
    torch.save(ck, tmp_path / "old.pt")
    model, _ = load_checkpoint(str(tmp_path / "old.pt"))
    x = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        assert torch.equal(model(x)["cls"], old(x)["cls"])
    run_engine("test", "--model", tmp_path / "old.pt", "--data", f"{det_data}/val.json", "--images",
               f"{det_data}/images", "--out", tmp_path / "pred.json")
    assert isinstance(json.loads((tmp_path / "pred.json").read_text()), list)


def test_resume_of_other_layers_is_refused(det_run, det_data, tmp_path):
    out = tmp_path / "r"
    shutil.copytree(det_run[0], out)
    ck = torch.load(out / "last.pt")
    ck.update(finished=False, size="p", arch=list(LEGACY["p"]))
    torch.save(ck, out / "last.pt")
    code, events, _ = run_engine("train", "--task", "detect", "--data", f"{det_data}/train.json", "--val",
                                 f"{det_data}/val.json", "--images", f"{det_data}/images", "--out", out, "--set",
                                 "imgsz=64", "--set", "epochs=3", "--set", "model=p", "--resume", check=False)
    assert code != 0
    err = [e for e in events if e["event"] == "error"]
    assert err and err[0]["code"] == "nothing_to_resume" and "other layers" in err[0]["message"]
