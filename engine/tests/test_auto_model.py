"""model=auto follows the hardware (CUDA, AMX or not) and the time budget per training image
(config.auto_model; engine/README.md, "Defaults by hardware and budget")."""
import pytest
import torch

from loupe_engine import config
from loupe_engine.config import MIN_EPOCHS_N, auto_model
from loupe_engine.cpu import FLAGS_ENV
from loupe_engine.trainer.detect import DetectTrainer

TASKS = ("detect", "obb", "classify", "segment", "ocr")


def test_cuda_trains_n_whatever_the_budget():
    for task in TASKS:
        assert auto_model(True, False, task, budget_s=60, images=5000)[0] == "n"
        assert auto_model(True, False, task, budget_s=None, images=None)[0] == "n"


@pytest.mark.parametrize("task", TASKS)
def test_a_cpu_without_amx_keeps_p_on_a_small_budget_and_affords_n_on_a_large_one(task):
    # The segmentation: 1,076 tiles, 20 minutes: n would see about 3 epochs -> p.
    size, why = auto_model(False, False, task, budget_s=1200, images=1076, imgsz=640, epochs=100, cores=2)
    assert size == "p" and f"< {MIN_EPOCHS_N}" in why and "float32" in why
    # A weekend budget for 200 images: n gets its epochs.
    size, why = auto_model(False, False, task, budget_s=72 * 3600, images=200, imgsz=640, epochs=100, cores=2)
    assert size == "n" and f">= {MIN_EPOCHS_N}" in why
    # No time limit: the planned epochs decide; a run of a few epochs keeps the cheaper p.
    assert auto_model(False, False, task, budget_s=None, images=200, epochs=100)[0] == "n"
    assert auto_model(False, False, task, budget_s=None, images=200, epochs=MIN_EPOCHS_N - 1)[0] == "p"


@pytest.mark.parametrize("task", TASKS)
def test_amx_affords_n_sooner_than_float32(task):
    """The same budget and data: n on a CPU that trains in bfloat16 (AMX), p on one that trains in float32."""
    images, side = 500, 640
    # the budget that gives float32's n 10 epochs gives bfloat16's n more than MIN_EPOCHS_N (it runs n ~4x faster)
    assert 10 * config.AMX_N_GAIN > MIN_EPOCHS_N
    ref_side, _, n_speed = config.FLOAT32_SPEED[task]
    budget = 10 * images / (n_speed * (config.FIXED_PX2 + ref_side ** 2) / (config.FIXED_PX2 + side ** 2))
    assert auto_model(False, False, task, budget, images, side)[0] == "p"
    assert auto_model(False, True, task, budget, images, side)[0] == "n"
    # and a tiny budget keeps p even there
    assert auto_model(False, True, task, 60, 5000, side)[0] == "p"


def test_smaller_images_and_more_cores_make_n_cheaper():
    """The budget per image scales with the image area (plus a fixed part) and the cores."""
    base = dict(cuda=False, cpu_bf16=False, task="detect", budget_s=1800, images=400, epochs=100)
    assert auto_model(**base, imgsz=640, cores=2)[0] == "p"
    assert auto_model(**base, imgsz=128, cores=2)[0] == "n"
    assert auto_model(**base, imgsz=640, cores=32)[0] == "n"


def test_validate_leaves_auto_to_the_trainer():
    cfg = config.validate({"model": "auto"})
    assert cfg.model == "auto"
    assert config.validate({"model": "p"}).model == "p"


@pytest.mark.parametrize("flags, amp, expect_short, expect_long", [
    ("-amx_bf16", True, "p", "n"), ("+amx_bf16", True, "n", "n"), ("+amx_bf16", False, "p", "n")])
def test_the_trainer_decides_from_its_data_budget_and_cpu_flags(det_data, tmp_path, monkeypatch, flags, amp,
                                                                expect_short, expect_long):
    """In a trainer: the dataset's image count, the --max-seconds budget, the image size and LOUPE_CPU_FLAGS reach
    the rule (a short budget: p in float32, n in bfloat16 on AMX; a long one: n on both)."""
    if torch.cuda.is_available():
        pytest.skip("the CPU branches need a machine without CUDA")
    monkeypatch.setenv(FLAGS_ENV, flags)
    images, side, cores = 14, 64, torch.get_num_threads()
    ref_side, _, n_speed = config.FLOAT32_SPEED["detect"]
    scale = (config.FIXED_PX2 + ref_side ** 2) / (config.FIXED_PX2 + side ** 2) * cores / config.SPEED_CORES
    short = 10 * images / (n_speed * scale)  # float32 n: 10 epochs, bfloat16 n: ~40
    for budget, expect in ((short, expect_short), (100 * short, expect_long)):
        cfg = config.validate({"model": "auto", "imgsz": side, "epochs": 100, "amp": amp})
        tr = DetectTrainer(cfg, "detect", f"{det_data}/train.json", f"{det_data}/val.json", f"{det_data}/images",
                           str(tmp_path / f"r{budget:.0f}"), max_seconds=budget)
        tr.build_data()
        assert len(tr.train_loader.dataset) == images
        tr.choose_size()
        assert tr.cfg.model == expect, (flags, budget)
