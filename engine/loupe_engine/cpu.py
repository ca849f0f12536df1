"""What this CPU can do, read from /proc/cpuinfo without importing torch, and the kernels the engine picks from it."""
import functools
import os

# what ATen's AVX-512 kernels need (the flags torch's own CPU detection requires for them)
AVX512_FLAGS = frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"})


@functools.lru_cache(maxsize=1)
def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def has_amx(flags=None):
    """The CPU multiplies bfloat16 matrices in hardware (Intel Xeon since Sapphire Rapids)."""
    return "amx_bf16" in (cpu_flags() if flags is None else flags)


def trains_bf16(amp, flags=None):
    """Mixed precision on a CPU means bfloat16, and pays only where the CPU multiplies bfloat16 matrices in
    hardware (AMX). The trainer's precision and model=auto's size both follow this one rule."""
    return bool(amp) and has_amx(flags)


def kernel_env(flags=None, environ=None):
    """Environment variables that choose torch's element-wise kernels, to set before torch runs its first operator.

    Torch 1.13 keeps its AVX-512 kernels opt-in (it picks AVX2 on every CPU unless ATEN_CPU_CAPABILITY says
    avx512) and, when asked, uses them without checking the CPU: so only a CPU with every flag they need gets them.
    On the development machine's Xeon they took the pico detector's bfloat16 training step at 704 px from 110-114
    to 98-104 ms/image on one core (batch norm, SiLU, additions and casts: the memory-bound half of the step), and
    the DeepPCB benchmark's two-process training from 14.1 to 16.2 images/s. A value the user set is kept."""
    flags = cpu_flags() if flags is None else flags
    environ = os.environ if environ is None else environ
    if "ATEN_CPU_CAPABILITY" in environ or not AVX512_FLAGS <= flags:
        return {}
    return {"ATEN_CPU_CAPABILITY": "avx512"}
