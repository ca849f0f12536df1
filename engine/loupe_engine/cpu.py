"""What this CPU can do, read from /proc/cpuinfo without importing torch, and the kernels the engine picks from it."""
import functools
import os

from loupe_engine.events import EngineError

# what ATen's AVX-512 kernels need (the flags torch's own CPU detection requires for them)
AVX512_FLAGS = frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq", "fma"})


# Edits to the flags the engine believes the CPU has, for tests and benchmarks: "-amx_bf16" hides AMX (float32
# training and model=auto's p on any CPU), "+amx_bf16" pretends it (bfloat16 autocast runs on every x86 CPU, only
# slower without the matrix units). Space- or comma-separated; engine/README.md.
FLAGS_ENV = "LOUPE_CPU_FLAGS"


@functools.lru_cache(maxsize=1)
def hardware_flags():
    """The flags /proc/cpuinfo lists, whatever LOUPE_CPU_FLAGS says."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def edit_flags(flags, edits):
    """`flags` after LOUPE_CPU_FLAGS-style edits: +flag adds it, -flag removes it. Anything else is refused, so a
    typo cannot silently leave the host's precision in place."""
    out = set(flags)
    for item in (edits or "").replace(",", " ").split():
        if len(item) < 2 or item[0] not in "+-":
            raise EngineError("invalid_parameters",
                              f"{FLAGS_ENV}={edits!r}: each item is +flag or -flag (e.g. -amx_bf16)")
        (out.add if item[0] == "+" else out.discard)(item[1:])
    return frozenset(out)


def cpu_flags(environ=None):
    """The flags the engine decides by: the hardware's, edited by LOUPE_CPU_FLAGS."""
    environ = os.environ if environ is None else environ
    return edit_flags(hardware_flags(), environ.get(FLAGS_ENV))


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
    environ = os.environ if environ is None else environ
    # a flag LOUPE_CPU_FLAGS pretends never reaches the kernels: torch would run instructions the CPU lacks
    flags = cpu_flags(environ) & hardware_flags() if flags is None else flags
    if "ATEN_CPU_CAPABILITY" in environ or not AVX512_FLAGS <= flags:
        return {}
    return {"ATEN_CPU_CAPABILITY": "avx512"}
