"""`balance`: class-balanced sampling. Images of a rare class are drawn more often, the order repeats under a
seed, the data-parallel shards split one drawn order, and a training with balance=true runs."""
import collections
import json
import os

import torch

from fixtures import make_dataset
from inproc import run
from loupe_engine import config
from loupe_engine.data.balance import image_weights
from loupe_engine.trainer import parallel
from loupe_engine.trainer.detect import DetectTrainer


def _rare_discs(root):
    """The drawn dataset with discs kept in two training images only: 'disc' becomes the rare class."""
    path = os.path.join(root, "all.json")
    with open(path) as f:
        coco = json.load(f)
    train_ids = [im["id"] for im in coco["images"] if im["split"] == "train"]
    with_disc = sorted({a["image_id"] for a in coco["annotations"] if a["category_id"] == 2
                        and a["image_id"] in train_ids})
    keep = set(with_disc[:2])
    coco["annotations"] = [a for a in coco["annotations"]
                           if a["category_id"] == 1 or a["image_id"] not in train_ids or a["image_id"] in keep]
    out = os.path.join(root, "rare.json")
    with open(out, "w") as f:
        json.dump(coco, f)
    return out, keep


def test_weights_follow_the_rarest_class():
    # class 0 in 9 images, class 1 in 1: (9/1) ** 0.5 = 3 for the image with class 1, 1 otherwise; no objects: 1
    w = image_weights([[0]] * 8 + [[0, 1], []], 2)
    assert list(w[:8]) == [1.0] * 8 and w[8] == 3.0 and w[9] == 1.0


def test_rare_images_drawn_more_often_same_order_under_a_seed_and_sharded(tmp_path):
    root = make_dataset(str(tmp_path), n=30, size=64)
    data, rare_ids = _rare_discs(root)
    cfg = config.validate({"imgsz": 64, "balance": True, "seed": 3})
    tr = DetectTrainer(cfg, "detect", data, None, os.path.join(root, "images"), str(tmp_path / "run"))
    tr.seed = 3
    tr.build_data()
    sampler = tr.train_loader.sampler
    assert isinstance(sampler, torch.utils.data.WeightedRandomSampler)
    assert len(sampler) == len(tr.train_records)  # an epoch keeps its number of draws
    counts = collections.Counter()
    for epoch in range(40):
        torch.manual_seed(epoch)
        counts.update(sampler)
    rare = [i for i, r in enumerate(tr.train_records) if r["id"] in rare_ids]
    common = [i for i in range(len(tr.train_records)) if i not in rare]
    per_rare = sum(counts[i] for i in rare) / len(rare)
    per_common = sum(counts[i] for i in common) / len(common)
    assert per_rare > 2 * per_common, (per_rare, per_common)
    torch.manual_seed(7)
    first = list(sampler)
    torch.manual_seed(7)
    assert list(sampler) == first
    # two data-parallel ranks seed torch alike: each takes every second draw of the same order
    shards = []
    for rank in (0, 1):
        torch.manual_seed(7)
        shards.append(list(parallel.ShardSampler(sampler, rank, 2)))
    assert shards[0] == first[0:len(shards[0]) * 2:2] and shards[1] == first[1:len(shards[1]) * 2:2]


def test_training_with_balance_runs(tmp_path):
    root = make_dataset(str(tmp_path), n=20, size=64)
    data, _ = _rare_discs(root)
    _, events, err = run("train", "--task", "detect", "--data", data, "--images", os.path.join(root, "images"),
                         "--out", tmp_path / "run", "--set", "imgsz=64", "--set", "epochs=1", "--set", "seed=3",
                         "--set", "model=p", "--set", "balance=true", "--device", "cpu")
    assert "balance: detect images drawn by their rarest class" in err
    assert events[-1]["event"] == "done" and os.path.isfile(tmp_path / "run" / "best.pt")
