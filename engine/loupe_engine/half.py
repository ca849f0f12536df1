"""`--half` (test, for every task): inference in float16, which only CUDA offers.

On CUDA the networks (the OCR's detector and recognizer both) become float16, and every prediction loop gives a
network its input in the network's own dtype (`model_input`, `model_dtype`): no flag can leave the input in one
precision and the weights in another, which is how `ocr test --half` once cast its input alone.

On a CPU `--half` is mapped to float32, said in the log and in the summary's `dtype`. Not refused: the platform's
test settings carry `half`, a saved setting outlives a move from a GPU server to a CPU one, and a speed setting
that cannot apply should not fail a test run. Not mapped to bfloat16: torch 1.13 has no float16 convolution on a
CPU, bfloat16 is slower than float32 there without AMX, and its scores would differ from the exported graph's.
"""
import torch

from loupe_engine.events import log


def apply_half(half, dev, *models):
    """Casts `models` to float16 when `half` applies (CUDA); answers the dtype name they now run in."""
    if not half:
        return "float32"
    if dev.type != "cuda":
        log("note: --half needs CUDA (a CPU has no float16 convolutions); testing in float32")
        return "float32"
    for m in models:
        m.half()
    return "float16"


def model_dtype(model):
    return next(model.parameters()).dtype


def model_input(model, imgs):
    """uint8 images (N, C, H, W) as the model's input: on its device, in its dtype, scaled to 0..1."""
    p = next(model.parameters())
    return (imgs.to(p.device).float() / 255).to(p.dtype)
