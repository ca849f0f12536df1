"""Measured matrix-multiply peak of this machine for the engine's FLOP share: the best of torch.mm (BLAS) and
a 1x1 convolution (the oneDNN GEMM the detector's convolutions run on), float32, all cores; and on a CPU with AMX,
where the engine trains in bfloat16, the same convolution in bfloat16."""
import json
import os
import time

import torch

from loupe_engine.cpu import has_amx

torch.set_num_threads(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def rate(fn, flops, reps=5):
    fn()
    best = 0.0
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = max(best, flops / (time.perf_counter() - t))
    return best


n = 1024
a, b = torch.randn(n, n), torch.randn(n, n)
mm = rate(lambda: a @ b, 2 * n ** 3)
x = torch.randn(1, 512, 64, 64)
conv = torch.nn.Conv2d(512, 512, 1, bias=False).eval()
bf16 = None
with torch.no_grad():
    gemm = rate(lambda: conv(x), 2 * 512 * 512 * 64 * 64)
    if has_amx():  # channels-last, as the engine trains
        conv16 = conv.bfloat16().to(memory_format=torch.channels_last)
        x16 = x.bfloat16().contiguous(memory_format=torch.channels_last)
        bf16 = rate(lambda: conv16(x16), 2 * 512 * 512 * 64 * 64)
print(json.dumps({"mm_gflops": mm / 1e9, "conv_gemm_gflops": gemm / 1e9, "peak_gflops": max(mm, gemm) / 1e9,
                  "bf16_gflops": bf16 and bf16 / 1e9, "threads": torch.get_num_threads()}))
