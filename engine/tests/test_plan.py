"""A run's plan. The time-budget plan's close_mosaic phase: it starts `close_mosaic` epochs before the plan's end
and, once started, lasts to the end even when the budget later lengthens the plan. The EMA window, the automatic
batch and the number of training processes."""
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


def _lag(ema_plan, steps):
    """How many steps the EMA of a weight that counts the steps trails it by after `steps` updates."""
    import torch
    from loupe_engine.trainer.base import ModelEMA
    model = torch.nn.Linear(1, 1, bias=False)
    ema = ModelEMA(model, total_iters=12500)  # 100 requested epochs of 125 steps
    ema_plan(ema)
    for i in range(1, steps + 1):
        with torch.no_grad():
            model.weight.fill_(i)
        ema.update(model)
    return steps - float(ema.ema.weight)


def test_the_ema_window_follows_a_plan_the_budget_cut():
    # the budget fits 19 of the 100 epochs (2,375 steps): the EMA then averages over about a tenth of them, not the
    # few steps a window sized for 12,500 would have reached by then
    assert 150 < _lag(lambda ema: ema.plan(2375), 2375) < 300
    assert _lag(lambda ema: None, 2375) < 10


def _batch(n_train, size=640, batch=-1):
    return BaseTrainer.auto_batch(SimpleNamespace(cfg=SimpleNamespace(batch=batch)), n_train, size)


def test_automatic_batch_takes_more_steps_when_the_images_are_few():
    assert [_batch(n) for n in (8, 30, 60, 200, 299, 300, 1000)] == [2, 7, 8, 8, 8, 16, 16]
    assert [_batch(60, 1024), _batch(60, 1280 + 32), _batch(1000, 1024)] == [8, 2, 8]
    assert _batch(60, batch=12) == 12  # a fixed batch is the user's


def _world(n_train, epochs, batch, cores=2, procs=0):
    from loupe_engine.trainer import parallel
    loader = SimpleNamespace(batch_size=batch, dataset=range(n_train))
    trainer = SimpleNamespace(cfg=SimpleNamespace(procs=procs, rect=False, epochs=epochs),
                              device=SimpleNamespace(type="cpu"), train_loader=loader, batch=batch)
    threads = parallel.torch.get_num_threads()
    parallel.torch.set_num_threads(cores)
    try:
        return parallel.plan_world(trainer)
    finally:
        parallel.torch.set_num_threads(threads)


def test_processes_follow_the_images_seen_over_the_run_not_per_epoch():
    assert _world(60, 100, 8) == 2  # few images, many epochs: worth a second process
    assert _world(60, 10, 8) == 1  # a short run: the start-up would cost more than it wins
    assert _world(2000, 1, 16) == 2
    assert _world(60, 100, 7) == 1  # 3 and 4 images per process are too few for batch-norm statistics
    assert _world(60, 10, 8, procs=2) == 2  # a set `procs` is the user's
