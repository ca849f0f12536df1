"""The training loop every task shares: optimiser, warm-up and schedule, EMA, time budget, early stop,
checkpoints every epoch (resumable after a crash) and SIGTERM. Tasks fill in the hooks
`build_data`, `get_model`, `get_loss`, `validate` and `fitness`; progress leaves through `callbacks`."""
import copy
import functools
import math
import os
import random
import time

import numpy as np
import torch

from loupe_engine import __version__, config, device
from loupe_engine.cpu import trains_bf16
from loupe_engine.events import Cancelled, EngineError, cancel_requested, log
from loupe_engine.models.load import checkpoint_arch, read_checkpoint
from loupe_engine.trainer import parallel

FEW_IMAGES = 300  # batch auto: below this many training images, at most 8 (auto_batch)
CUDA_WORKERS = 8  # data-loading processes per GPU when `workers` is not set: a GPU outruns one decoding core


def _seed_worker(rank, worker_id):
    """A data-loading worker's augmentation streams: torch seeds each worker from the main process's stream, which
    is the same on every data-parallel rank; the rank makes them differ, as the main process's own streams do."""
    seed = torch.initial_seed() + 7919 * rank
    random.seed(seed), np.random.seed(seed % 2 ** 32)


def _checkpoint_size(path):
    """The model size a Loupe checkpoint was trained at, or None when the file says none (or is not one)."""
    try:
        return read_checkpoint(path, "cpu").get("size")
    except Exception:  # noqa: BLE001 - load_pretrained names the problem with the file
        return None


class ModelEMA:
    """Exponential moving average of weights; the averaging window ramps up, and never exceeds ~10% of the
    run so short CPU runs are not dragged back to their first epochs. The run's length is the plan's: when a time
    budget cuts 100 requested epochs to the 19 that fit, a window sized for 100 would stay at a few steps to the end
    (DeepPCB, run 19: about 7 steps of 2,375) and the model validated and saved would be the raw weights."""

    def __init__(self, model, total_iters, updates=0):
        self.ema = copy.deepcopy(model).eval()
        for p in self.ema.parameters():
            p.requires_grad_(False)
        self.updates = updates
        self.plan(total_iters)

    def plan(self, total_iters):
        """Size the window for a run of `total_iters` optimiser steps."""
        self.tau = max(100.0, total_iters / 10)
        self.cap = 1 - 10.0 / max(total_iters, 10)

    def update(self, model):
        self.updates += 1
        d = min(0.9999 * (1 - math.exp(-self.updates / self.tau)), self.cap)
        with torch.no_grad():
            msd = model.state_dict()
            for k, v in self.ema.state_dict().items():
                if v.dtype.is_floating_point:
                    v.mul_(d).add_(msd[k].detach(), alpha=1 - d)


def recalibrate_bn(model, loader, batches, device, freeze=0):
    """Re-estimate batch-norm running statistics as plain averages over a few training batches. Short CPU runs
    need it: with momentum 0.03 the running statistics trail weights that move fast, and a model that fits its
    training batches scores at chance in eval mode. Frozen backbone layers keep theirs."""
    frozen = {id(m) for i, layer in enumerate(getattr(model, "backbone", [])) if i < freeze for m in layer.modules()}
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d) and id(m) not in frozen]
    momenta = [b.momentum for b in bns]
    for b in bns:
        b.reset_running_stats()
        b.momentum = None  # cumulative average
    model.train()
    for i, layer in enumerate(getattr(model, "backbone", [])):
        if i < freeze:
            layer.eval()
    with torch.no_grad():
        for k, (imgs, _, _) in enumerate(loader):
            if k >= batches:
                break
            if cancel_requested():
                raise Cancelled()
            model(imgs.to(device).float() / 255)
    for b, m in zip(bns, momenta):
        b.momentum = m
    model.eval()


def as_float(out):
    """A model's outputs (tensors, or dicts, lists and tuples of them) with bfloat16 and float16 tensors made
    float32."""
    if isinstance(out, torch.Tensor):
        return out.float() if out.dtype in (torch.bfloat16, torch.float16) else out
    if isinstance(out, dict):
        return {k: as_float(v) for k, v in out.items()}
    if isinstance(out, (list, tuple)):
        return type(out)(as_float(v) for v in out)
    return out


class BaseTrainer:
    loss_names = ("box", "cls", "dfl")  # the parts the task's criterion returns, in order
    bn_recalibration = 0  # training batches that re-estimate the EMA model's batch-norm statistics each epoch
    scratch_lr_gain = 1.0  # optimizer auto, AdamW, no pretrained weights: the class-count-aware rate times this
    rank, world = 0, 1  # this process's place among the data-parallel processes
    # oneDNN's CPU convolutions run faster on NHWC tensors: the pico detector's forward, backward and step on one core
    # (640 px, batch 4) took 118 ms/image against 142 in NCHW (engine/README.md, Speed)
    channels_last = True
    shared_validation = False  # the task's validate_shared() splits the per-epoch validation between the ranks

    def __init__(self, cfg, out_dir, callbacks=None, max_seconds=None, resume=False):
        self.cfg, self.out, self.resume = cfg, out_dir, resume
        self.callbacks = callbacks or {}
        self.budget = max_seconds if max_seconds else (cfg.time * 3600 if cfg.time else None)
        os.makedirs(out_dir, exist_ok=True)
        self.device = device.current()
        self.amp = bool(cfg.amp and self.device.type == "cuda")
        if self.device.type == "cuda":
            # convolution algorithms measured once per input shape; deterministic runs keep the fixed ones
            torch.backends.cudnn.benchmark = not cfg.deterministic
        # on CPU, mixed precision means bfloat16, and pays only where the CPU multiplies bfloat16 matrices in
        # hardware (AMX): there the pico detector's training step at 704 px took 101 ms/image against 186
        self.bf16 = self.device.type == "cpu" and trains_bf16(cfg.amp)
        if self.bf16:
            log("note: AMP on CPU: training in bfloat16 on this CPU's AMX units (amp=false trains in float32)")
        elif cfg.amp and not self.amp:
            log("note: AMP needs CUDA or a CPU with AMX; training in float32")

    @property
    def train_dtype(self):
        return "bfloat16" if self.bf16 else "float16" if self.amp else "float32"

    # ---- hooks
    def build_data(self):
        raise NotImplementedError

    def get_model(self):
        raise NotImplementedError

    def get_loss(self, model):
        raise NotImplementedError

    def validate(self, model, final=False):
        raise NotImplementedError

    def validate_shared(self, model):
        """Data-parallel ranks only, when `shared_validation`: validate this rank's share of the images and return
        the whole validation's metrics on rank 0 (None on the others)."""
        raise NotImplementedError

    def fitness(self, metrics):
        """One number from validation metrics; best.pt and patience follow it."""
        raise NotImplementedError

    def fire(self, name, **kw):
        cb = self.callbacks.get(name)
        if cb:
            cb(**kw)

    # ---- setup
    def loader_kw(self):
        """DataLoader settings every task's training loaders share: `workers` as set; when not set, 0 on a CPU
        (the cores train) and up to CUDA_WORKERS per process on CUDA, with pinned memory so the copies to the GPU
        overlap the step. Workers are made anew each epoch (not persistent): the per-epoch switches (close_mosaic,
        OCR's curriculum) change the dataset object, and a persistent worker would keep its own stale copy."""
        cfg, cuda = self.cfg, self.device.type == "cuda"
        workers = cfg.workers
        if cuda and "workers" not in getattr(cfg, "given", ()):
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
            per_process = cores // max(int(os.environ.get("LOCAL_WORLD_SIZE", "1")), 1)
            workers = max(1, min(CUDA_WORKERS, per_process))
            if self.rank == 0 and not getattr(self, "_said_workers", False):
                log(f"workers auto -> {workers} data-loading processes (CUDA)")
                self._said_workers = True
        return {"num_workers": workers, "pin_memory": cuda,
                "worker_init_fn": functools.partial(_seed_worker, self.rank) if workers else None}

    def set_seed(self, seed):
        random.seed(seed), np.random.seed(seed % 2 ** 32), torch.manual_seed(seed)
        if self.cfg.deterministic:
            torch.use_deterministic_algorithms(True, warn_only=True)
            torch.backends.cudnn.benchmark = False
        self.seed = seed

    def _optimizer(self, model, iters):
        cfg = self.cfg
        name, lr, mom = cfg.optimizer, cfg.lr0, cfg.momentum
        if name == "auto":
            # short runs converge faster with AdamW at a class-count-aware rate; long ones generalise with SGD
            name, lr, mom = ("SGD", 0.01, 0.9) if iters > 10000 else ("AdamW", round(0.002 * 5 / (4 + model.nc), 6),
                                                                         0.9)
            if name == "AdamW" and not cfg.pretrained:
                lr = round(lr * self.scratch_lr_gain, 6)
            log(f"optimizer auto -> {name} lr={lr} momentum={mom}")
        decay, no_decay, bias = [], [], []
        for mn, m in model.named_modules():
            for pn, p in m.named_parameters(recurse=False):
                if not p.requires_grad:
                    continue
                if pn == "bias":
                    bias.append(p)
                elif isinstance(m, torch.nn.BatchNorm2d):
                    no_decay.append(p)
                else:
                    decay.append(p)
        if name == "SGD":
            opt = torch.optim.SGD(bias, lr=lr, momentum=mom, nesterov=True)
        else:
            opt = getattr(torch.optim, name)(bias, lr=lr, betas=(mom, 0.999), weight_decay=0.0)
        opt.add_param_group({"params": decay, "weight_decay": cfg.weight_decay})
        opt.add_param_group({"params": no_decay, "weight_decay": 0.0})
        for g in opt.param_groups:
            g["initial_lr"] = lr
        self.opt_name, self.base_momentum = name, mom
        # warmup_bias_lr is an SGD-scale rate; Adam-family steps are ~lr-sized, so scale it by lr / SGD's 0.01
        self.bias_lr0 = cfg.warmup_bias_lr if name == "SGD" else cfg.warmup_bias_lr * lr / 0.01
        return opt

    def _lf(self, x):
        """Learning-rate factor at fractional epoch x."""
        e, f = max(self.epochs, 1), self.cfg.lrf
        if self.cfg.scheduler == "cosine":
            return ((1 - math.cos(min(x, e) * math.pi / e)) / 2) * (f - 1) + 1
        return max(1 - x / e, 0) * (1.0 - f) + f

    # ---- loop
    def train(self):
        launched = device.launched_world()
        if launched:  # torchrun started N copies of this command: join them before anything is drawn at random
            self.rank, _, self.world = launched
            parallel.join_launched(self.device)
        seed = self.cfg.seed or random.randint(1, 2 ** 31 - 1)
        if launched:
            seed = parallel.broadcast_ints([seed])[0]  # seed=0 draws one seed for the run: rank 0's
        self.set_seed(seed)
        log(f"seed {self.seed}")
        blueprint = copy.deepcopy({k: v for k, v in self.__dict__.items() if k != "callbacks"})
        self.build_data()
        self.choose_size()
        if launched:
            return parallel.train_launched(self)
        blueprint["cfg"].model = self.cfg.model  # the data-parallel helpers build the size chosen here
        world = parallel.plan_world(self)
        if world == 1:
            return self.loop()
        team = parallel.Team(self, blueprint, world)
        threads, ok = torch.get_num_threads(), False
        torch.set_num_threads(1)
        self.world, unsharded = world, self.train_loader
        self.train_loader = parallel.shard_loader(unsharded, self.batch, 0, world)
        try:
            history = self.loop()
            ok = True
            return history
        except RuntimeError:
            dead = team.dead(wait=5.0)  # gloo fails the collective as soon as a peer's socket closes
            if dead:
                log(dead)
                raise SystemExit(parallel.HELPER_DIED) from None
            raise
        finally:
            torch.set_num_threads(threads)
            team.close(ok)
            self.world, self.train_loader = 1, unsharded

    def choose_size(self):
        """model=auto: the size from the hardware and the time budget per image (config.auto_model), decided once
        the training data is known (its image count and, for a segmenter, the image size it chose), and logged."""
        if self.cfg.model != "auto":
            return
        last = os.path.join(self.out, "last.pt")
        if self.resume and os.path.isfile(last):  # a resumed run keeps its size whatever the cores or time left
            self.cfg.model = read_checkpoint(last, "cpu", "nothing_to_resume")["size"]
            log(f"model auto -> {self.cfg.model} (the size of the run resumed)")
            return
        if self.cfg.pretrained and os.path.isfile(self.cfg.pretrained):
            # every layer of the weights started from fits only a model of their size (the agent's retrain, a user's
            # "start from v1"); load_pretrained reports a file that is not a checkpoint
            size = _checkpoint_size(self.cfg.pretrained)
            if size in ("p", "n", "s", "m"):
                self.cfg.model = size
                log(f"model auto -> {size} (the size of the pretrained checkpoint)")
                return
        package = type(self).__module__.split(".")[1]  # classify, segment, ocr; the detector's is `trainer`
        task = package if package in ("classify", "segment", "ocr") else self.task
        side = getattr(self, "train_size", None) or self.cfg.imgsz
        size, why = config.auto_model(self.device.type == "cuda", self.bf16, task, self.budget,
                                      len(self.train_loader.dataset), side, self.cfg.epochs, torch.get_num_threads())
        self.cfg.model = size
        log(f"model auto -> {size} ({why})")

    def loop(self):
        """The epochs. Every data-parallel rank runs it; rank 0 (`lead`) alone saves and decides, and validates
        unless the task shares validation between the ranks (`shared_validation`)."""
        cfg, lead, world = self.cfg, self.rank == 0, self.world
        model = self.get_model().to(self.device)
        if self.channels_last:
            model = model.to(memory_format=torch.channels_last)
        ckpt_path = os.path.join(self.out, "last.pt")
        ck = None
        if self.resume:
            if not os.path.isfile(ckpt_path):
                raise EngineError("nothing_to_resume", f"no checkpoint to resume at {ckpt_path}")
            ck = read_checkpoint(ckpt_path, self.device, "nothing_to_resume")
            if ck.get("finished"):
                raise EngineError("nothing_to_resume", f"{ckpt_path} belongs to a finished training")
            if checkpoint_arch(ck) not in (None, model.arch):
                raise EngineError("nothing_to_resume", f"{ckpt_path} was written by an engine whose '{ck['size']}' "
                                  "model had other layers; it cannot be resumed, start a new training (its best.pt "
                                  "still tests and exports)")
            model.load_state_dict(ck["train_model"])
            log(f"resuming from epoch {ck['epoch'] + 1}")
        for i, m in enumerate(model.backbone):
            if i < cfg.freeze:
                for p in m.parameters():
                    p.requires_grad_(False)
        self.epochs = cfg.epochs
        nb = len(self.train_loader)
        total_iters = max(nb * self.epochs, 1)
        opt = self._optimizer(model, total_iters)
        ema = ModelEMA(model, total_iters) if lead else None
        net = parallel.wrap(model, self.device) if world > 1 else model
        criterion = self.get_loss(model)
        if world > 1 and hasattr(criterion, "link_all"):
            # every parameter gets a gradient on every step (the detection loss keeps an empty batch's box outputs
            # in the graph), so DDP need not search for unused ones
            criterion.link_all = True
        scaler = torch.cuda.amp.GradScaler(enabled=self.amp)
        start_epoch, best_fit, best_epoch, elapsed0, bad_epochs = 0, -1.0, -1, 0.0, 0
        history, durations = [], []  # this process's epoch times (training and validation), for the budget plan
        epoch_end = elapsed0
        self.closed_from = None
        if ck:
            opt.load_state_dict(ck["optimizer"])
            if ema:
                ema.ema.load_state_dict(ck["model"])
                ema.updates = ck["ema_updates"]
            start_epoch, best_fit, best_epoch = ck["epoch"] + 1, ck["best_fitness"], ck["best_epoch"]
            elapsed0, history, self.epochs = ck["elapsed_s"], ck["history"], ck["epochs"]
            epoch_end = elapsed0
            bad_epochs = ck.get("bad_epochs", 0)
            self.closed_from = ck.get("closed_from")
            self.images_seen, self.train_time = ck.get("images_seen", 0), ck.get("train_time", 0.0)
            self.seed = ck["seed"]
            if ema:
                ema.plan(nb * self.epochs)
        nw = min(max(round(cfg.warmup_epochs * nb), 1 if cfg.warmup_epochs else 0), max(total_iters // 5, 1))
        t_start = time.time() - elapsed0
        self.fire("phase", phase="training")
        epoch = start_epoch
        stop_reason = "epochs"
        while epoch < self.epochs:
            # augmentations draw from random/numpy: each rank its own stream; torch's stream (the samplers' order,
            # which ShardSampler splits between ranks) is the same on every rank
            own = self.seed + epoch + 7919 * self.rank
            random.seed(own), np.random.seed(own % 2 ** 32)
            torch.manual_seed(self.seed + epoch)
            self.set_epoch(epoch)
            model.train()
            for i, m in enumerate(model.backbone):
                if i < cfg.freeze:
                    m.eval()  # frozen layers keep their batch-norm statistics
            t_ep, t_data, t_step = time.time(), 0.0, 0.0
            loss_sum, seen = torch.zeros(len(self.loss_names)), 0
            tl = time.time()
            for bi, (imgs, targets, _) in enumerate(self.train_loader):
                t_data += time.time() - tl
                if world == 1 and cancel_requested():
                    raise Cancelled()
                it = bi + nb * epoch
                x = epoch + bi / nb
                for j, g in enumerate(opt.param_groups):
                    target_lr = g["initial_lr"] * self._lf(x)
                    if it < nw:
                        start = self.bias_lr0 if j == 0 else 0.0
                        g["lr"] = np.interp(it, [0, nw], [start, target_lr])
                        if "momentum" in g:
                            g["momentum"] = np.interp(it, [0, nw], [cfg.warmup_momentum, self.base_momentum])
                    else:
                        g["lr"] = target_lr
                # pinned on CUDA (loader_kw): the copies run while the GPU still works on the last step
                imgs = imgs.to(self.device, non_blocking=True).float() / 255
                if self.channels_last:
                    imgs = imgs.contiguous(memory_format=torch.channels_last)
                targets = targets.to(self.device, non_blocking=True)
                imgs, targets = self.preprocess_batch(imgs, targets)
                ts = time.time()
                with torch.autocast(self.device.type, dtype=torch.bfloat16 if self.bf16 else None,
                                    enabled=self.amp or self.bf16):
                    out = net(imgs)
                    # the network in bfloat16 or float16, the loss (assignment, IoU, DFL, Dice) in float32: in
                    # float16 IoU and DFL terms of small boxes and sums over large maps lose digits or overflow
                    out = as_float(out)
                    with torch.autocast(self.device.type, enabled=False):
                        loss, parts = criterion(out, targets)
                    # the ranks' gradients are averaged: scaled so the sum over the global batch is what one process
                    # training the whole batch would get
                    loss = loss * world
                opt.zero_grad(set_to_none=True)
                scaler.scale(loss).backward()
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
                scaler.step(opt)
                scaler.update()
                if ema:
                    ema.update(model)
                t_step += time.time() - ts
                loss_sum += parts.cpu()
                seen += len(imgs) * world
                over = bool(self.budget and time.time() - t_start > self.budget)
                if world > 1:
                    # rank 0 alone hears SIGTERM and keeps the clock; every rank stops on the same step
                    over, cancel = parallel.broadcast_ints([over, lead and cancel_requested()])
                    if cancel:
                        raise Cancelled()
                if over:
                    break
                tl = time.time()
            train_s = time.time() - t_ep
            self.images_seen = getattr(self, "images_seen", 0) + seen
            self.train_time = getattr(self, "train_time", 0.0) + train_s
            tv = time.time()
            if lead and self.bn_recalibration:
                self.recalibrate(ema.ema)
            shared = None
            if world > 1:
                loss_sum = parallel.all_reduce_sum(loss_sum) / world
                if cfg.val and self.shared_validation:
                    # each rank validates a share of the images: rank 0 alone left the others idle for ~7 % of
                    # every epoch (DeepPCB, 100 images of ~5 s in ~75 s epochs)
                    val_model = ema.ema if lead else self.validation_copy(model)
                    shared = self.validate_shared(parallel.share_weights(val_model))
                if not lead:  # rank 0 saves and plans; then tells the others whether to go on
                    self.epochs, go = parallel.broadcast_ints([0, 0])
                    epoch += 1
                    if not go:
                        break
                    continue
            metrics = {"loss": float(loss_sum.sum() / max(bi + 1, 1)),
                       **{f"loss_{k}": float(v / max(bi + 1, 1)) for k, v in zip(self.loss_names, loss_sum)},
                       "lr": float(opt.param_groups[1]["lr"]), "img_per_s": seen / max(train_s, 1e-6)}
            if cfg.val:
                metrics.update(shared if shared is not None else self.validate(ema.ema, final=False))
                fit = self.fitness(metrics)
            else:
                fit = epoch  # without validation the latest weights are the best we know
            if cfg.profile:
                log(f"profile epoch {epoch + 1}: data {t_data:.1f}s, forward/backward {t_step:.1f}s, "
                    f"validation {time.time() - tv:.1f}s")
            improved = fit > best_fit
            if improved:
                best_fit, best_epoch, bad_epochs = fit, epoch, 0
            else:
                bad_epochs += 1
            elapsed = time.time() - t_start
            history.append({"epoch": epoch + 1, **{k: v for k, v in metrics.items() if not isinstance(v, (dict, list))}})
            # a time budget shortens the plan so the schedule (and close_mosaic) still runs to its end; it lengthens
            # it again (up to the requested epochs; once mosaic has closed it stays closed, so the mosaic-free phase
            # grows) when epochs run faster than they did, so the budget is not left unused. The pace is that of the
            # last three epochs: on a host whose load changes, the run's average trails the present (DeepPCB, run
            # 15: epochs sped up from 17 to 20 images/s after mosaic closed, and 180 s of 1800 went unused)
            durations.append(elapsed - epoch_end)
            epoch_end = elapsed
            if self.budget:
                per_epoch = sum(durations[-3:]) / len(durations[-3:])
                fit_epochs = epoch + 1 + int((self.budget - elapsed) / max(per_epoch, 1e-6))
                if fit_epochs < self.epochs:
                    self.epochs = max(fit_epochs, epoch + 1)
                    stop_reason = "time"  # the budget, not the requested epochs, ends this run
                elif fit_epochs > self.epochs < cfg.epochs:
                    self.epochs = min(fit_epochs, cfg.epochs)
                    stop_reason = "time" if self.epochs < cfg.epochs else "epochs"
                ema.plan(nb * self.epochs)
            stop = None
            if cfg.patience and bad_epochs >= cfg.patience:
                stop = "patience"
            elif self.budget and elapsed >= self.budget:
                stop = "time"
            finished = stop is not None or epoch + 1 >= self.epochs
            state = {"epoch": epoch, "epochs": self.epochs, "best_fitness": best_fit, "best_epoch": best_epoch,
                     "elapsed_s": elapsed, "history": history, "seed": self.seed, "bad_epochs": bad_epochs,
                     "ema_updates": ema.updates, "finished": finished, "images_seen": self.images_seen,
                     "closed_from": self.closed_from,
                     "train_time": self.train_time}
            self.save(model, ema.ema, opt, state, improved)
            eta = (elapsed - elapsed0) / (epoch + 1 - start_epoch) * (self.epochs - epoch - 1)
            slim = {k: v for k, v in metrics.items() if k not in ("pr_curve", "confusion_matrix")}
            self.fire("epoch", epoch=epoch + 1, epochs=self.epochs, metrics=slim, eta_s=round(eta, 1))
            if world > 1:
                parallel.broadcast_ints([self.epochs, not finished])
            epoch += 1
            if stop:
                stop_reason = stop
                log(f"stopping early: {'no improvement for %d epochs' % cfg.patience if stop == 'patience' else 'time budget reached'}")
                break
        self.best_epoch, self.total_epochs, self.stop_reason = best_epoch + 1, epoch, stop_reason
        self.elapsed = time.time() - t_start
        return history

    # ---- helpers the tasks share
    def take_fraction(self, records):
        """`fraction` < 1: a seeded random share of the training images."""
        if self.cfg.fraction >= 1:
            return records
        records = list(records)
        random.Random(self.seed).shuffle(records)
        return records[:max(1, round(len(records) * self.cfg.fraction))]

    def auto_batch(self, n_train, size):
        """batch=-1: 16 up to 640 px, 8 up to 1280, else 2; 8 at most below FEW_IMAGES training images, and at
        most a quarter of them. A few-image run from scratch needs steps more than large batches: on 60, 100 and
        200 DeepPCB images batch 8 scored higher than 15 or 16 at the same images/s, by less as the images grow
        (engine/BENCHMARKS-FEW.md)."""
        batch = self.cfg.batch
        if batch < 0:
            batch = 16 if size <= 640 else (8 if size <= 1280 else 2)
            if n_train < FEW_IMAGES:
                batch = min(batch, 8)
            batch = max(2, min(batch, n_train // 4 or 2))
            log(f"batch auto -> {batch}")
        return batch

    def load_pretrained(self, model):
        """`pretrained`: copy every tensor whose name and shape match from a Loupe checkpoint (any task, so a
        detector's backbone can start a classifier); nothing is ever downloaded."""
        path = self.cfg.pretrained
        if not path:
            return model
        if not os.path.isfile(path):
            raise EngineError("pretrained_missing", f"pretrained checkpoint not found: {path} "
                              "(no weights are downloaded; give a Loupe .pt file)")
        try:
            sd = read_checkpoint(path, "cpu")["model"]
        except EngineError:
            raise
        except Exception as e:  # a truncated file, or a dict without weights
            raise EngineError("model_invalid", f"pretrained checkpoint {os.path.basename(path)} is not a Loupe "
                                               f"checkpoint: {e}")
        own = model.state_dict()
        ok = {k: v for k, v in sd.items() if k in own and own[k].shape == v.shape}
        model.load_state_dict(ok, strict=False)
        log(f"pretrained: {len(ok)}/{len(own)} tensors loaded from {path}")
        return model

    def set_epoch(self, epoch):
        """Per-epoch data switches (close_mosaic)."""

    def mosaic_on(self, epoch):
        """close_mosaic: mosaic (and the tasks' other mixing augmentations) is off for the plan's last
        `close_mosaic` epochs and, once off, stays off: a time budget that lengthens the plan later extends the
        mosaic-free phase instead of reopening it."""
        if self.closed_from is None and epoch >= self.epochs - self.cfg.close_mosaic:
            self.closed_from = epoch
        return self.closed_from is None

    def validation_copy(self, model):
        """A helper rank's model that receives rank 0's EMA weights for a shared validation."""
        if getattr(self, "_validation_model", None) is None:
            self._validation_model = copy.deepcopy(model).eval()
        return self._validation_model

    def recalibrate(self, model):
        """Re-estimate `model`'s (the EMA's) batch-norm statistics from `bn_recalibration` training batches."""
        recalibrate_bn(model, self.train_loader, self.bn_recalibration, self.device, self.cfg.freeze)

    def preprocess_batch(self, imgs, targets):
        return imgs, targets

    def meta(self):
        return {}

    def checkpoint_base(self, model):
        """What every checkpoint holds besides weights: versions, config, the task's metadata and the model's
        architecture (models/load.py rebuilds it from that)."""
        return {"version": __version__, "cfg": config.to_dict(self.cfg), **self.meta(), "arch": list(model.arch)}

    def save(self, model, ema, opt, state, improved):
        base = self.checkpoint_base(model)
        last = {**base, **state, "model": ema.state_dict(), "train_model": model.state_dict(),
                "optimizer": opt.state_dict()}
        tmp = os.path.join(self.out, "last.pt.tmp")
        torch.save(last, tmp)
        os.replace(tmp, os.path.join(self.out, "last.pt"))  # atomic: a kill -9 never leaves half a checkpoint
        if improved:
            tmp = os.path.join(self.out, "best.pt.tmp")
            torch.save({**base, "model": ema.state_dict(), "epoch": state["epoch"]}, tmp)
            os.replace(tmp, os.path.join(self.out, "best.pt"))
