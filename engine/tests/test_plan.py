"""The time-budget plan's close_mosaic phase: it starts `close_mosaic` epochs before the plan's end and, once
started, lasts to the end even when the budget later lengthens the plan."""
from types import SimpleNamespace

from loupe_engine.trainer.base import BaseTrainer


def test_mosaic_closes_for_the_last_epochs_and_stays_closed_when_the_plan_grows():
    t = SimpleNamespace(epochs=10, cfg=SimpleNamespace(close_mosaic=3), closed_from=None)
    assert [BaseTrainer.mosaic_on(t, e) for e in range(8)] == [True] * 7 + [False]
    t.epochs = 14  # faster epochs: the budget now fits four more
    assert [BaseTrainer.mosaic_on(t, e) for e in range(8, 14)] == [False] * 6
    assert t.closed_from == 7


def test_a_shortened_plan_closes_mosaic_earlier():
    t = SimpleNamespace(epochs=20, cfg=SimpleNamespace(close_mosaic=5), closed_from=None)
    assert BaseTrainer.mosaic_on(t, 3)
    t.epochs = 9  # slower epochs: the budget fits fewer
    assert not BaseTrainer.mosaic_on(t, 4) and t.closed_from == 4


def test_no_close_mosaic_keeps_mosaic_to_the_end():
    t = SimpleNamespace(epochs=5, cfg=SimpleNamespace(close_mosaic=0), closed_from=None)
    assert all(BaseTrainer.mosaic_on(t, e) for e in range(5))
