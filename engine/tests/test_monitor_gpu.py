"""The `gpu` field of epoch events that the platform's monitor shows (issue 31 item 3)."""
import torch

from loupe_engine.trainer import report


def test_no_gpu_adds_nothing_to_the_epoch_event(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert report.gpu_fields() == {}


def test_a_cpu_run_on_a_gpu_host_claims_no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    assert report.gpu_fields() == {}


def test_a_gpu_reports_its_name_memory_and_use(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: "NVIDIA H100")
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (30 * 2**30, 80 * 2**30))

    def no_nvml(i):
        raise ModuleNotFoundError("pynvml")

    monkeypatch.setattr(torch.cuda, "utilization", no_nvml)
    assert report.gpu_fields() == {"gpu": {"name": "NVIDIA H100", "util_percent": None,
                                           "memory_used_bytes": 50 * 2**30, "memory_total_bytes": 80 * 2**30}}


def test_the_epoch_callback_carries_the_gpu_field(monkeypatch, capsys):
    monkeypatch.setattr(report, "gpu_fields", lambda: {"gpu": {"name": "X"}})
    report.callbacks(lambda kw: "line")["epoch"](epoch=1, epochs=2, metrics={}, eta_s=1.0)
    out = capsys.readouterr().out
    assert '"gpu": {"name": "X"}' in out and '"epoch": 1' in out
