"""Classification through the CLI: training beats chance on drawn discs vs squares, test writes labels and scores,
the exported ONNX gives PyTorch's probabilities in OpenCV DNN, folder uploads, multi-label, bad input, resume."""
import json
import os
import shutil
import subprocess
import sys
import time

import cv2
import numpy as np
import pytest
import torch

from conftest import check_half_on_cpu, engine_env, run_engine, seeded_samples
from inproc import run
from shapes import make_classify, make_classify_folder

FAST = ["--set", "imgsz=64", "--set", "model=p", "--set", "seed=3"]


@pytest.fixture(scope="module")
def cls_data(tmp_path_factory):
    return make_classify(str(tmp_path_factory.mktemp("cls")), n=48)


@pytest.fixture(scope="module")
def cls_run(cls_data, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("clsrun"))
    _, events, err = run_engine("train", "--task", "classify", "--data", f"{cls_data}/all.json", "--images",
                                f"{cls_data}/images", "--out", out, *FAST, "--set", "epochs=6", "--set", "cutmix=0.2",
                                "--set", "mosaic=0.5")
    return out, events, err


def test_training_beats_chance_and_reports(cls_run):
    out, events, err = cls_run
    epochs = [e for e in events if e["event"] == "epoch"]
    assert [e["epoch"] for e in epochs] == list(range(1, 7))
    assert epochs[-1]["metrics"]["val_loss"] < epochs[0]["metrics"]["val_loss"]
    s = events[-1]["summary"]
    assert events[-1]["event"] == "done" and s["task"] == "classify" and not s["multi_label"]
    assert s["top1"] >= 0.75  # 12 validation images, two classes: chance is 0.5
    for key in ("precision", "recall", "f1", "best_val_loss", "inference_ms", "fps", "model_size_mb", "param_count",
                "best_epoch", "total_epochs"):
        assert s[key] is not None, key
    assert "mosaic do(es) not apply to classify" in err
    res = json.load(open(os.path.join(out, "results.json")))
    assert np.array(res["metrics"]["confusion_matrix"]).sum() == 12


def test_test_writes_labels_scores_and_metrics(cls_run, cls_data, tmp_path):
    _, events, _ = run("test", "--model", f"{cls_run[0]}/best.pt", "--data", f"{cls_data}/all.json", "--images",
                       f"{cls_data}/images", "--out", tmp_path / "p.json")
    preds = json.load(open(tmp_path / "p.json"))
    assert len(preds) == 48
    assert [e for e in events if e["event"] == "progress"][-1] == {"event": "progress", "phase": "testing",
                                                                   "done": 48, "total": 48}
    p = preds[0]
    assert p["label"] in ("disc", "square") and p["category_id"] == ("disc", "square").index(p["label"]) + 1
    assert abs(sum(p["scores"].values()) - 1) < 1e-3 and p["score"] == max(p["scores"].values())
    s = events[-1]["summary"]
    assert s["top1"] >= 0.75 and set(s["per_class"]) == {"disc", "square"}
    assert np.array(s["confusion_matrix"]).sum() == 48
    assert os.path.isfile(tmp_path / "p.metrics.json")


def _letterboxed(path, size):
    from loupe_engine.data.augment import letterbox
    img, _, _ = letterbox(cv2.imread(path), (size, size))
    return np.ascontiguousarray(img[..., ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255


def test_half_on_cpu_is_float32(cls_run, cls_data, tmp_path):
    check_half_on_cpu(f"{cls_run[0]}/best.pt", f"{cls_data}/all.json", f"{cls_data}/images", tmp_path)


def test_onnx_in_opencv_matches_pytorch(cls_run, cls_data, tmp_path):
    from loupe_engine.models.load import load_checkpoint
    _, events, _ = run("export", "--model", f"{cls_run[0]}/best.pt", "--format", "onnx", "--out", tmp_path / "c.onnx")
    blob = (tmp_path / "c.onnx").read_bytes()
    assert b'"task": "classify"' in blob and b'"input_width": 64' in blob and b"Softmax" in blob
    model, _ = load_checkpoint(f"{cls_run[0]}/best.pt")
    net = cv2.dnn.readNetFromONNX(str(tmp_path / "c.onnx"))
    for name in ("c000.png", "c001.png"):
        x = _letterboxed(f"{cls_data}/images/{name}", 64)
        net.setInput(x)
        got = net.forward("probs")
        with torch.no_grad():
            want = model(torch.from_numpy(x)).softmax(1).numpy()
        assert got.shape == (1, 2) and np.abs(got - want).max() < 1e-4


def test_test_time_views_average_probabilities(tmp_path):
    """A classifier's views average its probabilities, so the result of a mirrored or turned image is the image's
    own; the portable flips of the exported graph give the same numbers, in OpenCV DNN too."""
    from loupe_engine.classify.run import Exported
    from loupe_engine.models.classifier import Classifier
    from loupe_engine.tta import anti_identity, class_probs
    torch.manual_seed(0)
    model = Classifier(3, "p").eval()
    for p in model.parameters():  # random weights, so that one view alone is far from symmetric
        if p.dim() > 1:
            torch.nn.init.kaiming_normal_(p)
    model.fc.weight.data *= 20
    for m in model.modules():  # and statistics of its own, as trained layers have (equal ones would be merged by
        if isinstance(m, torch.nn.BatchNorm2d):  # the ONNX export into Identity nodes OpenCV cannot load)
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
    r = torch.linspace(0, 1, 64)  # ramps in x and in y: no flip or turn leaves the image as it is
    x = torch.stack([r.expand(64, 64), r[:, None].expand(64, 64), (r[:, None] * r).sqrt()])[None]
    with torch.no_grad():
        assert (class_probs(model, x) - class_probs(model, x.flip(-1))).abs().max() > 0.02
        for mode, views in (("hflip", [x.flip(-1)]), ("flips", [x.flip(-1), x.flip(-2)]),
                            ("dihedral", [x.flip(-1), x.flip(-2), x.transpose(-1, -2)])):
            want = class_probs(model, x, mode)
            for v in views:
                torch.testing.assert_close(class_probs(model, v, mode), want, rtol=1e-4, atol=1e-5)
            torch.testing.assert_close(class_probs(model, x, mode, (anti_identity(64),) * 2), want, rtol=0, atol=1e-6)
        torch.onnx.export(Exported(model, 64, "dihedral").eval(), x, str(tmp_path / "c.onnx"), opset_version=17,
                          input_names=["images"], output_names=["probs"], do_constant_folding=True)
    net = cv2.dnn.readNetFromONNX(str(tmp_path / "c.onnx"))
    net.setInput(x.numpy())
    assert np.abs(net.forward("probs") - want.numpy()).max() < 1e-5


def test_test_and_export_take_tta(cls_run, cls_data, tmp_path):
    """test --tta averages the views per image; the exported graph holds them and OpenCV DNN loads it."""
    from loupe_engine.models.load import load_checkpoint
    from loupe_engine.tta import class_probs
    best = f"{cls_run[0]}/best.pt"
    _, events, _ = run("test", "--model", best, "--data", f"{cls_data}/all.json", "--images", f"{cls_data}/images",
                       "--out", tmp_path / "p.json", "--tta", "dihedral")
    model, _ = load_checkpoint(best)
    x = torch.from_numpy(_letterboxed(f"{cls_data}/images/c000.png", 64))
    with torch.no_grad():
        want = class_probs(model, x, "dihedral").numpy()
    first = next(p for p in json.load(open(tmp_path / "p.json")) if p["file_name"] == "c000.png")
    assert events[-1]["summary"]["tta"] == "dihedral"
    assert np.abs(np.array(list(first["scores"].values())) - want[0]).max() < 1e-4

    _, events, _ = run("export", "--model", best, "--format", "onnx", "--tta", "dihedral", "--out", tmp_path / "c.onnx")
    blob = (tmp_path / "c.onnx").read_bytes()
    assert events[-1]["summary"]["tta"] == "dihedral" and b'"tta": "dihedral"' in blob and b"MatMul" in blob
    net = cv2.dnn.readNetFromONNX(str(tmp_path / "c.onnx"))
    net.setInput(x.numpy())
    assert np.abs(net.forward("probs") - want).max() < 1e-4

    code, events, _ = run("test", "--model", best, "--data", f"{cls_data}/all.json", "--images",
                          f"{cls_data}/images", "--out", tmp_path / "x.json", "--tta", "rotate", check=False)
    assert code == 2 and "tta='rotate'" in events[-1]["message"]


def test_folder_of_class_folders(tmp_path):
    root = make_classify_folder(str(tmp_path / "upload"), n=12)
    _, events, err = run("train", "--task", "classify", "--data", root, "--out", tmp_path / "r", *FAST,
                         "--set", "epochs=1", "--set", "mixup=1.0", "--set", "close_mosaic=0")
    assert events[-1]["event"] == "done" and "every 5th image of each class validates" in err
    _, events, _ = run("test", "--model", tmp_path / "r/best.pt", "--data", root, "--out", tmp_path / "p.json")
    assert events[-1]["summary"]["images"] == 12 and "top1" in events[-1]["summary"]
    flat = tmp_path / "flat"  # a folder of unlabelled images: predictions only
    flat.mkdir()
    for f in ("000.png", "001.png"):
        shutil.copy(os.path.join(root, "disc" if f == "000.png" else "square", f), flat / f)
    _, events, _ = run("test", "--model", tmp_path / "r/best.pt", "--data", flat, "--out", tmp_path / "q.json")
    assert "top1" not in events[-1]["summary"] and len(json.load(open(tmp_path / "q.json"))) == 2


def test_multi_label_trains_tests_and_exports_sigmoids(tmp_path):
    d = make_classify(str(tmp_path / "multi"), n=24, multi=True)
    _, events, _ = run("train", "--task", "classify", "--data", f"{d}/all.json", "--images", f"{d}/images",
                       "--out", tmp_path / "r", *FAST, "--set", "epochs=1")
    assert events[-1]["summary"]["multi_label"] and "mAP" in events[-1]["summary"]
    _, events, _ = run("test", "--model", tmp_path / "r/best.pt", "--data", f"{d}/all.json", "--images",
                       f"{d}/images", "--out", tmp_path / "p.json", "--conf", "0.4")
    p = json.load(open(tmp_path / "p.json"))[0]
    assert isinstance(p["category_ids"], list) and set(p["labels"]) <= {"disc", "square"}
    assert all((v >= 0.4) == (n in p["labels"]) for n, v in p["scores"].items())
    s = events[-1]["summary"]
    assert {"accuracy", "mAP", "micro_f1"} <= set(s) and set(s["per_class"]["disc"]) >= {"tp", "fp", "fn", "tn"}
    run("export", "--model", tmp_path / "r/best.pt", "--out", tmp_path / "m.onnx")
    net = cv2.dnn.readNetFromONNX(str(tmp_path / "m.onnx"))
    net.setInput(_letterboxed(f"{d}/images/c000.png", 64))
    got = net.forward("probs")
    assert got.shape == (1, 2) and b"Sigmoid" in (tmp_path / "m.onnx").read_bytes()


def _fails(tmp_path, data, images, code, *words):
    rc, events, err = run("train", "--task", "classify", "--data", data, "--images", images, "--out",
                          tmp_path / "bad", *FAST, check=False)
    assert rc == 2 and events[-1]["code"] == code and "Traceback" not in err, events[-1]
    for w in words:
        assert w in events[-1]["message"]


def test_bad_input_gives_clear_messages(cls_data, tmp_path):
    d = json.load(open(f"{cls_data}/all.json"))

    def write(mutate):
        dd = json.loads(json.dumps(d))
        mutate(dd)
        (tmp_path / "b.json").write_text(json.dumps(dd))
        return tmp_path / "b.json"

    img = f"{cls_data}/images"
    _fails(tmp_path, write(lambda x: x.update(images=[])), img, "empty_dataset")
    _fails(tmp_path, write(lambda x: x["images"][0].pop("category_id")), img, "image_without_class", "c000.png")
    _fails(tmp_path, write(lambda x: x["categories"].append({"id": 7, "name": "ghost"})), img,
           "category_without_images", "ghost")
    _fails(tmp_path, write(lambda x: x["images"][2].update(category_id=9)), img, "dataset_invalid", "c002.png")
    broken = tmp_path / "imgs"
    shutil.copytree(img, broken)
    (broken / "c004.png").write_bytes(b"not a png")
    _fails(tmp_path, f"{cls_data}/all.json", broken, "bad_image", "c004.png")
    empty_class = tmp_path / "folders"
    make_classify_folder(str(empty_class), n=6)
    (empty_class / "scratch").mkdir()
    rc, events, _ = run("train", "--task", "classify", "--data", empty_class, "--out", tmp_path / "r2", *FAST,
                        check=False)
    assert rc == 2 and events[-1]["code"] == "category_without_images" and "scratch" in events[-1]["message"]


def test_skewed_classes_are_balanced():
    from loupe_engine.classify.data import balanced_sampler, mix_batch
    from loupe_engine.classify.loss import multi_label_pos_weight
    recs = [{"label": 0}] * 90 + [{"label": 1}] * 10
    torch.manual_seed(0)
    drawn = np.bincount([recs[i]["label"] for i in balanced_sampler(recs, 2)], minlength=2)
    assert 35 <= drawn[1] <= 65  # the rare class is drawn about half the time, not 10%
    assert balanced_sampler([{"label": 0}] * 10 + [{"label": 1}] * 8, 2) is None
    assert multi_label_pos_weight([50, 5], 100).tolist() == pytest.approx([1.0, 19 ** 0.5])
    imgs, t = mix_batch(torch.rand(4, 3, 8, 8), torch.tensor([0, 1, 0, 1]), 2, 1.0, 0.0)
    assert t.shape == (4, 2) and torch.allclose(t.sum(1), torch.ones(4))


def test_resume_after_kill_9(cls_data, tmp_path):
    cmd = [sys.executable, "-m", "loupe_engine", "train", "--task", "classify", "--data", f"{cls_data}/all.json",
           "--images", f"{cls_data}/images", "--out", str(tmp_path / "r"), *FAST, "--set", "epochs=3"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=engine_env())
    for line in p.stdout:
        if json.loads(line)["event"] == "epoch":
            break
    p.kill()
    p.wait()
    time.sleep(0.1)
    _, events, err = run(*cmd[3:], "--resume")
    done = [e["epoch"] for e in events if e["event"] == "epoch"]
    assert done and done[0] >= 2 and done[-1] == 3 and "resuming from epoch" in err
    assert events[-1]["summary"]["total_epochs"] == 3


def test_transpose_turns_the_training_image(cls_data):
    """transpose=1 gives the image transpose=0 gives with x and y swapped; the label stays."""
    from loupe_engine import config
    from loupe_engine.classify.data import ClassifyTrainSet, load_coco_labels
    records = load_coco_labels(f"{cls_data}/all.json", f"{cls_data}/images")[0]
    samples = []
    for p in (0.0, 1.0):  # each sample from the same seed; the channel swap drawn after the transpose is off
        cfg = config.validate({"imgsz": 64, "degrees": 20, "fliplr": 0.5, "flipud": 0.5, "bgr": 0.0, "transpose": p})
        ds = ClassifyTrainSet(records[:4], cfg, False)
        samples.append(seeded_samples(ds, 4))
    for (img0, label0, _), (img1, label1, _) in zip(*samples):
        assert torch.equal(img1, img0.transpose(1, 2)) and label0 == label1
