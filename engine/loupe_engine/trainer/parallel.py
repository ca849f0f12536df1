"""Data-parallel training on CPU cores: one single-threaded process per core, gradients averaged with
torch.distributed (gloo). Measured on the 2-core development machine (pico detector, 320 px, batch 16): one process
with two OpenMP threads trains 22.7 images/s, two single-threaded processes 32; most of the small network's
operators are too short for two threads to share (engine/README.md, Speed).

The engine's own process is rank 0: it alone reads events, writes checkpoints and decides when to stop; helper
processes (spawned, so they start from a clean interpreter) rebuild the same data and model and follow its
decisions, broadcast after every step and every epoch. Detection shares each epoch's validation: every rank
evaluates a share of the images with rank 0's EMA weights, and rank 0 summarizes the parts.

Under torchrun (`python3 -m torch.distributed.run --nproc_per_node=N -m loupe_engine train ...`) the same loop runs
in N processes torchrun started, each a whole engine command: NCCL between GPUs (each rank on cuda:LOCAL_RANK),
gloo between CPU processes; no helpers are spawned (`train_launched`)."""
import ctypes
import datetime
import os
import signal
import sys
import tempfile
import threading

import torch
import torch.distributed as dist

from loupe_engine.events import Cancelled, EngineError, emit, log, quiet

# Training images each process sees over the planned epochs: below this the start-up (a second interpreter, a second
# data load, a few seconds) costs more than it wins. Counted over the run, not per epoch: 60 DeepPCB images for 100
# epochs trained 15-18 % faster in two processes (engine/BENCHMARKS-FEW.md).
MIN_IMAGES_PER_PROC = 1000
MIN_BATCH_PER_PROC = 4  # batch-norm statistics need a few images per process
HELPER_DIED = 3  # the engine's exit code when a helper process died (engine/README.md, Contract)


def plan_world(trainer):
    """How many processes train: `procs` if set, else one per core when the run is worth splitting."""
    cfg = trainer.cfg
    cores = torch.get_num_threads()  # the CLI set it to the cores this process may run on (cli._threads)
    if trainer.device.type != "cpu" or cfg.rect:
        if cfg.procs > 1:
            log(f"note: procs={cfg.procs} applies to CPU training without rect; training in one process")
        return 1
    loader = trainer.train_loader
    sharable = loader.batch_size is not None  # a custom batch sampler cannot be split between processes
    if cfg.procs:
        world = cfg.procs
    else:
        world = cores
        seen = len(loader.dataset) * max(cfg.epochs, 1)
        while world > 1 and (seen < MIN_IMAGES_PER_PROC * world or trainer.batch // world < MIN_BATCH_PER_PROC):
            world -= 1
    if world > 1 and (not sharable or trainer.batch < world):
        log(f"note: batch {trainer.batch} cannot be split over {world} processes; training in one process")
        return 1
    return world


class ShardSampler(torch.utils.data.Sampler):
    """Every `world`-th index of the task's own sampler (shuffled, or class-balanced), from `rank`. All ranks seed
    torch alike each epoch, so they draw the same order and each takes a disjoint, equally long share."""

    def __init__(self, base, rank, world):
        self.base, self.rank, self.world = base, rank, world

    def __len__(self):
        return len(self.base) // self.world

    def __iter__(self):
        order = list(self.base)
        return iter(order[self.rank:len(self) * self.world:self.world])


def shard_loader(loader, batch, rank, world, **kw):
    """The task's loader cut to this rank's share; the global batch stays `batch`. `kw`: DataLoader settings
    (workers, pinned memory; BaseTrainer.loader_kw), else the task loader's worker count."""
    kw = kw or {"num_workers": loader.num_workers, "pin_memory": loader.pin_memory,
                "worker_init_fn": loader.worker_init_fn}
    return torch.utils.data.DataLoader(
        loader.dataset, batch_size=batch // world, sampler=ShardSampler(loader.sampler, rank, world),
        collate_fn=loader.collate_fn, drop_last=True, **kw)


def backend_for(dev):
    return "nccl" if dev.type == "cuda" else "gloo"


def join_launched(dev):
    """Join the process group torchrun's variables describe (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE)."""
    backend = backend_for(dev)
    if backend == "nccl" and not dist.is_nccl_available():
        raise EngineError("device_unavailable", "this torch has no NCCL: train on CUDA in one process, or on CPUs")
    if backend == "gloo" and os.environ.get("MASTER_ADDR", "127.0.0.1") in ("127.0.0.1", "localhost"):
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # one host: loopback, as the spawned helpers use
    # rank 0 validates alone between epochs while the others wait in a collective: allow long validations
    dist.init_process_group(backend, init_method="env://", timeout=datetime.timedelta(hours=24))


def leave_launched():
    if dist.is_initialized():
        dist.destroy_process_group()


def comm_device():
    """Where tensors must be for a collective: NCCL exchanges GPU tensors only."""
    if dist.get_backend() == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def all_reduce_sum(t):
    """`t` (a CPU tensor) summed over the ranks, back on the CPU."""
    on = t.to(comm_device())
    dist.all_reduce(on)
    return on.cpu()


def wrap(model, dev):
    """DistributedDataParallel around `model`, on its GPU when it has one."""
    return torch.nn.parallel.DistributedDataParallel(model, device_ids=[dev.index] if dev.type == "cuda" else None)


def _init_group(store, rank, world):
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    # rank 0 validates (and helpers wait) between epochs, unless the task shares it: allow long validations
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(hours=24))


def _die_with_parent():
    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: a kill -9 of rank 0 ends us too
    except OSError:
        pass


def _helper(cls, blueprint, rank, world, store):
    _die_with_parent()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # rank 0 hears the cancel and tells us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    quiet()
    torch.set_num_threads(1)
    trainer = cls.__new__(cls)
    trainer.__dict__.update(blueprint)
    trainer.callbacks = {}
    trainer.rank, trainer.world = rank, world
    _init_group(store, rank, world)
    try:
        trainer.set_seed(trainer.seed)
        trainer.build_data()
        trainer.train_loader = shard_loader(trainer.train_loader, trainer.batch, rank, world)
        trainer.loop()
    except Cancelled:
        pass
    finally:
        dist.destroy_process_group()


class Team:
    """Rank 0's side: start the helpers, join the group, and clean up whatever happens."""

    def __init__(self, trainer, blueprint, world):
        self.world = world
        fd, self.store = tempfile.mkstemp(prefix="loupe-ddp-")
        os.close(fd)
        os.unlink(self.store)  # the file store creates it
        ctx = torch.multiprocessing.get_context("spawn")
        self.procs = [ctx.Process(target=_helper, args=(type(trainer), blueprint, r, world, self.store), daemon=True)
                      for r in range(1, world)]
        for p in self.procs:
            p.start()
        joined = threading.Event()
        threading.Thread(target=self._watch_rendezvous, args=(joined,), daemon=True).start()
        _init_group(self.store, 0, world)
        joined.set()
        log(f"data-parallel: {world} processes, one thread each, batch {trainer.batch // world} per process")

    def dead(self, wait=0.0):
        """The message for a helper that died (killed, out of memory), or None."""
        for p in self.procs:
            p.join(wait)
            if p.exitcode not in (None, 0):
                return (f"data-parallel: helper process {p.pid} ended with exit code {p.exitcode}; stopping the run "
                        "(resume continues from the last epoch's checkpoint)")
        return None

    def _watch_rendezvous(self, joined):
        """A helper that dies before joining leaves rank 0 in the rendezvous for the group timeout, a day: end the
        run as a crash instead (exit code 3). Once joined, a dead helper fails the next collective at once, and
        train() says the same."""
        while not joined.wait(1.0):
            message = self.dead()
            if message:
                log(message)
                for q in self.procs:
                    if q.is_alive():
                        q.kill()
                if os.path.exists(self.store):
                    os.unlink(self.store)
                os._exit(HELPER_DIED)

    def close(self, ok):
        if ok:
            for p in self.procs:
                p.join(60)
        for p in self.procs:
            if p.is_alive():
                p.kill()
                p.join()
        if dist.is_initialized():
            dist.destroy_process_group()
        if os.path.exists(self.store):
            os.unlink(self.store)


def train_launched(trainer):
    """One of torchrun's processes: its share of every batch, gradients averaged by DDP (NCCL on CUDA, gloo on
    CPUs). Rank 0 speaks, saves and decides as in the CPU data-parallel training; the other ranks end here, and
    rank 0 alone goes on to evaluate best.pt and report."""
    sizes = ("p", "n", "s", "m")
    trainer.cfg.model = sizes[broadcast_ints([sizes.index(trainer.cfg.model)])[0]]  # rank 0's auto choice
    if trainer.cfg.rect or trainer.train_loader.batch_size is None:
        raise EngineError("invalid_parameters", "rect=true batches cannot be split between torchrun's "
                                                "processes: train without rect, or in one process")
    if trainer.batch < trainer.world:
        raise EngineError("invalid_parameters", f"batch={trainer.batch} cannot be split over {trainer.world} "
                                                f"processes: set batch to at least {trainer.world} (the batch is "
                                                "the whole step's, shared by the processes)")
    if trainer.cfg.procs > 1:
        log(f"note: procs={trainer.cfg.procs} is ignored under torchrun: its {trainer.world} processes train")
    unsharded = trainer.train_loader
    trainer.train_loader = shard_loader(unsharded, trainer.batch, trainer.rank, trainer.world, **trainer.loader_kw())
    log(f"torchrun: {trainer.world} processes ({backend_for(trainer.device)}, rank 0 on {trainer.device}), "
        f"batch {trainer.batch // trainer.world} per process")
    try:
        history = trainer.loop()
    except RuntimeError as e:
        # a rank that died fails the next collective (gloo at once; with NCCL torchrun stops the others);
        # an out-of-memory error is a RuntimeError too. The run is resumable from the last epoch's checkpoint.
        message = (f"torchrun rank {trainer.rank}: {type(e).__name__}: {str(e)[:500]} (a training process failed "
                   "or died; --resume continues from the last epoch's checkpoint)")
        emit("error", code="worker_failed", message=message)
        sys.stderr.write(message + "\n")  # every rank's own reason, quiet or not: torchrun shows it
        raise SystemExit(HELPER_DIED) from None
    finally:
        trainer.train_loader = unsharded
    leave_launched()
    if trainer.rank:
        raise SystemExit(0)
    return history


def broadcast_ints(values):
    """Rank 0's integers to every rank (the others pass placeholders of the same length)."""
    t = torch.tensor(values, dtype=torch.float64, device=comm_device())
    dist.broadcast(t, 0)
    return [int(v) for v in t.tolist()]


def share_weights(model):
    """Rank 0's floating-point weights and buffers copied into every rank's `model` (same architecture)."""
    tensors = [v for v in model.state_dict().values() if v.dtype.is_floating_point]
    flat = torch.cat([v.reshape(-1).float() for v in tensors]).to(comm_device())  # values in logical order
    dist.broadcast(flat, 0)
    if dist.get_rank():
        offset = 0
        for v in tensors:
            v.copy_(flat[offset:offset + v.numel()].view(v.shape))
            offset += v.numel()
    return model


def gather_to_lead(obj):
    """Every rank's `obj` as a list on rank 0 (None elsewhere)."""
    if dist.get_backend() == "nccl":  # NCCL's object gather is the all-gather (on the current GPU)
        parts = [None] * dist.get_world_size()
        dist.all_gather_object(parts, obj)
        return parts if dist.get_rank() == 0 else None
    parts = [None] * dist.get_world_size() if dist.get_rank() == 0 else None
    dist.gather_object(obj, parts, dst=0)
    return parts
