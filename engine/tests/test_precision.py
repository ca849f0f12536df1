"""Mixed precision on CPU: in bfloat16 the conv-BN-SiLU block computes SiLU as x * sigmoid(x) (torch 1.13's
bfloat16 SiLU backward is slow); it must stay the same function, forward and backward, within bfloat16's precision."""
import torch

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
