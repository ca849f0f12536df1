"""The CPU's flags choose torch's element-wise kernels: AVX-512 only where the CPU has every flag they need, and
never over the user's own ATEN_CPU_CAPABILITY."""
import os
import subprocess
import sys

import pytest

from loupe_engine.cpu import (AVX512_FLAGS, FLAGS_ENV, cpu_flags, edit_flags, hardware_flags, has_amx, kernel_env,
                              trains_bf16)
from loupe_engine.events import EngineError

SAPPHIRE_RAPIDS = AVX512_FLAGS | {"avx2", "amx_bf16", "amx_tile"}


def test_avx512_kernels_only_with_every_flag_they_need():
    assert kernel_env(SAPPHIRE_RAPIDS, {}) == {"ATEN_CPU_CAPABILITY": "avx512"}
    for flag in AVX512_FLAGS:
        assert kernel_env(SAPPHIRE_RAPIDS - {flag}, {}) == {}
    assert kernel_env(frozenset({"avx2", "fma"}), {}) == {}
    assert kernel_env(frozenset(), {}) == {}


def test_the_users_choice_is_kept():
    assert kernel_env(SAPPHIRE_RAPIDS, {"ATEN_CPU_CAPABILITY": "avx2"}) == {}
    assert kernel_env(SAPPHIRE_RAPIDS, {"ATEN_CPU_CAPABILITY": "default"}) == {}


def test_amx_from_flags():
    assert has_amx(SAPPHIRE_RAPIDS) and not has_amx(AVX512_FLAGS)


def _capability(extra_env):
    """The kernels torch reports after the engine's command line set up its process."""
    env = {k: v for k, v in os.environ.items() if k != "ATEN_CPU_CAPABILITY"}
    env.update(extra_env)
    code = ("from loupe_engine.cli import _threads; _threads(); import torch; "
            "print([l for l in torch.__config__.show().splitlines() if 'CPU capability' in l][0])")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_command_line_sets_the_kernels_before_torch_runs():
    chosen = _capability({})
    if AVX512_FLAGS <= cpu_flags():
        assert chosen.endswith("AVX512")
    else:
        assert "AVX512" not in chosen
    assert _capability({"ATEN_CPU_CAPABILITY": "default"}).endswith("NO AVX")


def test_bfloat16_training_needs_amp_and_amx():
    assert trains_bf16(True, frozenset({"amx_bf16", "avx512f"}))
    assert not trains_bf16(False, frozenset({"amx_bf16"}))
    assert not trains_bf16(True, frozenset({"avx512f", "avx512_bf16"}))


def test_loupe_cpu_flags_hides_or_pretends_a_flag():
    host = frozenset({"avx2", "fma", "amx_bf16", "amx_tile"})
    assert edit_flags(host, "-amx_bf16,-amx_tile") == {"avx2", "fma"}
    assert edit_flags(host, " -amx_bf16  +avx512_bf16 ") == {"avx2", "fma", "amx_tile", "avx512_bf16"}
    assert edit_flags(host, "") == host and edit_flags(host, None) == host
    for bad in ("amx_bf16", "+", "-amx_bf16 x"):
        with pytest.raises(EngineError, match="LOUPE_CPU_FLAGS"):
            edit_flags(host, bad)


def test_loupe_cpu_flags_decides_the_precision_whatever_the_host():
    assert has_amx(cpu_flags({FLAGS_ENV: "+amx_bf16"}))
    assert not has_amx(cpu_flags({FLAGS_ENV: "-amx_bf16"}))
    assert cpu_flags({}) == hardware_flags()


def test_a_pretended_flag_never_reaches_the_kernels():
    # torch would run AVX-512 instructions on a CPU without them: only the hardware's flags, less hidden ones, count
    pretend = " ".join("+" + f for f in AVX512_FLAGS)
    assert kernel_env(environ={FLAGS_ENV: pretend}) == kernel_env(environ={})
    assert kernel_env(environ={FLAGS_ENV: "-avx512f"}) == {}
