import pytest

from loupe_engine import config
from loupe_engine.events import EngineError


def problems(overrides):
    with pytest.raises(EngineError) as e:
        config.validate(overrides)
    return e.value.message.split("; ")


def test_defaults_are_valid_and_documented():
    cfg = config.validate({})
    assert cfg.imgsz == 640 and cfg.batch == -1 and cfg.mosaic == 1.0
    rows = config.describe()
    assert all(comment for _, _, _, comment in rows)
    assert {"imgsz", "epochs", "batch", "patience", "lr0", "lrf", "momentum", "weight_decay", "mosaic", "mixup",
            "hsv_h", "copy_paste", "cutmix", "bgr", "auto_augment", "erasing", "close_mosaic"} <= {r[0] for r in rows}


def test_one_message_per_problem():
    msgs = problems({"imgsz": 100, "mosaic": 1.5, "time": 0.5, "bogus": 1, "other": 2, "optimizer": "Lion"})
    assert len(msgs) == 6
    assert any("imgsz=100" in m and "multiple of 32" in m for m in msgs)
    assert any("unknown parameter 'bogus'" in m for m in msgs)
    assert any("time=0.5" in m for m in msgs)


@pytest.mark.parametrize("overrides", [{"time": 0}, {"time": 1}, {"time": 72}, {"seed": 0}, {"batch": "auto"},
                                       {"batch": 2}, {"fraction": 1.0}, {"cache": "ram"}, {"imgsz": "320"}])
def test_limits_accepted(overrides):
    config.validate(overrides)


@pytest.mark.parametrize("overrides", [{"time": 73}, {"batch": 0}, {"fraction": 0}, {"fliplr": -0.1},
                                       {"epochs": 1.5}, {"amp": "maybe"}, {"imgsz": 48}])
def test_limits_rejected(overrides):
    assert len(problems(overrides)) == 1


def test_harmless_conflicts_are_corrected():
    cfg = config.validate({"cos_lr": True, "rect": True, "crop": 640, "imgsz": 320})
    assert cfg.scheduler == "cosine" and cfg.mosaic == 0 and cfg.crop == 0


def test_parse_set():
    assert config.parse_set(["a=1", "b = x"]) == {"a": "1", "b": "x"}
    with pytest.raises(EngineError):
        config.parse_set(["novalue"])
