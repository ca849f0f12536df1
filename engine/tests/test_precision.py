"""Mixed precision on CPU: in bfloat16 the conv-BN-SiLU block computes SiLU as x * sigmoid(x) (torch 1.13's
bfloat16 SiLU backward is slow); it must stay the same function, forward and backward, within bfloat16's precision."""
import os

import pytest
import torch

from conftest import FAST, run_engine
from loupe_engine.cpu import FLAGS_ENV
from loupe_engine.models.blocks import Conv
from loupe_engine.trainer.base import as_float


def _run(block, x, bf16):
    block.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        y = block(x)
    (y.float() * torch.linspace(-1, 1, y.numel()).view_as(y)).sum().backward()
    return y, block.conv.weight.grad.clone()


def test_conv_block_in_bfloat16_matches_float32():
    torch.manual_seed(0)
    block = Conv(8, 16, 3).train()
    x = torch.randn(2, 8, 24, 24) * 2
    y32, g32 = _run(block, x, False)
    y16, g16 = _run(block, x, True)
    assert y32.dtype == torch.float32 and y16.dtype == torch.bfloat16
    assert (y16.float() - y32).abs().max() < 0.05 * y32.abs().max()
    cos = torch.nn.functional.cosine_similarity(g16.flatten(), g32.flatten(), dim=0)
    assert cos > 0.999 and (g16.norm() / g32.norm() - 1).abs() < 0.02


def test_as_float_converts_nested_outputs_and_keeps_the_rest():
    out = {"box": torch.ones(2, dtype=torch.bfloat16), "cls": [torch.zeros(1, dtype=torch.bfloat16)],
           "shapes": [torch.Size([4, 4])], "idx": torch.arange(3)}
    got = as_float(out)
    assert got["box"].dtype == torch.float32 and got["cls"][0].dtype == torch.float32
    assert got["shapes"] == [torch.Size([4, 4])] and isinstance(got["shapes"][0], torch.Size)
    assert got["idx"].dtype == torch.int64


@pytest.mark.parametrize("edit,dtype,note", [
    ("+amx_bf16", "bfloat16", "AMP on CPU: training in bfloat16"),
    ("-amx_bf16", "float32", "AMP needs CUDA or a CPU with AMX"),
])
def test_both_cpu_precisions_train_on_any_host(det_data, tmp_path, edit, dtype, note):
    """LOUPE_CPU_FLAGS decides the precision path whatever the host has: bfloat16 autocast runs on any x86 CPU
    (slowly without AMX), so both paths train, validate and save here, and model=auto follows the same rule."""
    if torch.cuda.is_available():
        pytest.skip("on CUDA amp means float16, not the CPU's rule")
    code, events, err = run_engine(
        "train", "--task", "detect", "--data", f"{det_data}/train.json", "--val", f"{det_data}/val.json",
        "--images", f"{det_data}/images", "--out", tmp_path, *FAST, "--set", "model=auto", "--set", "batch=8",
        "--set", "mosaic=0", env={FLAGS_ENV: edit})
    summary = events[-1]["summary"]
    assert summary["train_dtype"] == dtype and note in err
    # model=auto decides by the same precision; one planned epoch affords n nothing, so p on both (test_auto_model.py)
    kind = "bfloat16 (AMX)" if dtype == "bfloat16" else "float32"
    assert f"model auto -> p (detect on a CPU training in {kind}" in err
    assert os.path.isfile(tmp_path / "best.pt")


def test_a_bad_cpu_flags_edit_is_refused_before_training(det_data, tmp_path):
    code, events, _ = run_engine("train", "--task", "detect", "--data", f"{det_data}/train.json", "--images",
                                 f"{det_data}/images", "--out", tmp_path, *FAST, env={FLAGS_ENV: "amx_bf16"},
                                 check=False)
    assert code == 2 and events[-1]["event"] == "error" and events[-1]["code"] == "invalid_parameters"
    assert "LOUPE_CPU_FLAGS" in events[-1]["message"]
