"""OCR trainer: the rotated-box detector's training (DetectTrainer, task obb: every training parameter as for
obb) with the recognizer trained alongside, one recognizer epoch at the start of each detector epoch, on the
same learning-rate schedule and time budget. best.pt holds the detector of its best epoch (0.1 mAP50 + 0.9
mAP50-95) and the recognizer of its best epoch (character accuracy on the validation boxes).

Both train data-parallel like obb (one process per core, trainer/parallel.py): every process takes its share of
each recognizer batch too, its gradients averaged by DistributedDataParallel as the detector's are. Validation
runs on rank 0 alone with every core as threads while the helpers wait in the next exchange."""
import contextlib
import copy
import os
import random
import time

import torch

from loupe_engine.events import EngineError, check_cancel, log
from loupe_engine.models.load import read_checkpoint
from loupe_engine.ocr import val as V
from loupe_engine.ocr.crop import REC_HEIGHT, rec_width_for
from loupe_engine.ocr.data import RecTrainSet, background_patches, collate, cut_context, load_texts, read_rgb
from loupe_engine.ocr.formats import formats
from loupe_engine.ocr.model import STRIDE, Recognizer
from loupe_engine.ocr.text import build_charset
from loupe_engine.trainer import parallel
from loupe_engine.trainer.detect import DetectTrainer

REC_BATCH = 16  # small batches: more updates in a CPU budget
REC_LR = 0.003  # AdamW; optimizer auto
REC_WARMUP = 100  # recognizer steps of linear learning-rate warm-up
REC_SHARE = 0.5  # of each epoch's training time while the detector trains (a crop costs ~7 ms, an image ~32)
CURRICULUM_STEPS = 300  # recognizer steps until random synthetic strings reach the labels' length
DET_PATIENCE = 3  # validations without DET_MIN_GAIN: the detector has converged and trains one batch per epoch
DET_MIN_GAIN = 0.01  # relative gain of the detector's fitness that counts as progress
# Stale epochs count only from this fitness (0.1 mAP50 + 0.9 mAP50-95) on: a detector that has found nothing yet
# (warm-up, a tiny image size) is not converged, and freezing it there left it finding no line at all.
DET_MIN_FITNESS = 0.1


def curriculum_cap(steps, longest, full_at=CURRICULUM_STEPS):
    """The longest random synthetic string after `steps` recognizer steps: 1 character at first, the labels'
    longest (no cap: None) from `full_at` steps on."""
    cap = 1 + steps * longest // max(full_at, 1)
    return cap if cap < longest else None


class FirstBatches:
    """The first k batches of a loader."""

    def __init__(self, loader, k):
        self.loader, self.k = loader, k

    def __len__(self):
        return min(self.k, len(self.loader))

    def __iter__(self):
        for i, b in enumerate(self.loader):
            if i >= self.k:
                return
            yield b


class OcrTrainer(DetectTrainer):
    shared_validation = False  # rank 0 validates both networks

    def __init__(self, cfg, data, val, images, out_dir, **kw):
        super().__init__(cfg, "obb", data, val, images, out_dir, **kw)
        self.train_size = cfg.crop or cfg.imgsz
        self._det_best, self._rec_best = -1.0, -1.0
        self._det_improved = self._rec_improved = False
        self._best_det_state = self._best_rec_state = None
        self.best_det_epoch = self.best_rec_epoch = 0
        self._det_full, self._det_frozen, self._det_stale = None, False, 0
        self._det_last_s = self._det_full_s = self._t_det = None
        self.rec_passes = 0

    # ---- data
    def build_data(self):
        super().build_data()
        texts = load_texts(self.data, self.names)
        val_texts = load_texts(self.val_path, self.names) if self.val_path else texts
        if self.cfg.single_cls:
            texts = {k: [(0, b, t) for _, b, t in v] for k, v in texts.items()}
            val_texts = {k: [(0, b, t) for _, b, t in v] for k, v in val_texts.items()}
        self.texts, self.val_texts = texts, val_texts
        train_lines = [t for r in self.train_records for _, _, t in texts.get(r["id"], []) if t]
        if not train_lines:
            raise EngineError("no_text", f"{self.data}: no training box has a `text`; give each text box the text it "
                                         "shows (annotation key \"text\")")
        by_class = {}
        for r in self.train_records:
            for c, _, t in texts.get(r["id"], []):
                by_class.setdefault(c, []).append(t)
        self.text_formats = formats(by_class, len(self.names))
        val_lines = [t for r in self.val_records for _, _, t in val_texts.get(r["id"], []) if t]
        self.charset = build_charset(train_lines + val_lines)
        boxes = [b for r in self.train_records for _, b, t in texts.get(r["id"], []) if t]
        longest = max(train_lines + val_lines, key=len)
        self.rec_width = rec_width_for(boxes, len(longest))
        steps = self.rec_width // STRIDE
        if 2 * len(longest) + 1 > steps:
            raise EngineError("text_too_long", f"the text {longest[:40]!r}... has {len(longest)} characters; the "
                                               f"recognizer reads at most {(steps - 1) // 2} per box: split long lines "
                                               "into several boxes")
        crops = []
        for r in self.train_records:
            lines = [(b, t) for _, b, t in texts.get(r["id"], []) if t]
            if lines:
                img = read_rgb(r)
                crops += [(*cut_context(img, b), t) for b, t in lines]
        rng = random.Random(self.seed)
        self.rec_set = RecTrainSet(crops, self.charset, self.rec_width,
                                   background_patches(self.train_records, texts, rng), self.seed)
        self.rec_loader = torch.utils.data.DataLoader(self.rec_set, batch_size=REC_BATCH, shuffle=True,
                                                      collate_fn=collate, drop_last=len(self.rec_set) > REC_BATCH,
                                                      **self.loader_kw())
        unlabeled = sum(1 for r in self.train_records for _, _, t in texts.get(r["id"], []) if t is None)
        log(f"recognizer: {len(crops)} text boxes ({unlabeled} boxes without text train the detector only), "
            f"{len(self.charset)} characters {''.join(self.charset)!r}, input {REC_HEIGHT}x{self.rec_width}, "
            f"{len(self.rec_set)} crops per pass ({len(self.rec_set) - self.rec_set.n_real} synthetic)")

    # ---- networks
    def choose_size(self):
        """model=auto sizes the detector for its share of the budget: the recognizer trains in the other half of each
        epoch (plates-eu-br, 1200 s on 2 loaded cores: n chosen for 18 epochs got 6, its mAP50 0.03 after 2)."""
        budget = self.budget
        if budget:
            self.budget = budget * (1 - REC_SHARE)
        try:
            super().choose_size()
        finally:
            self.budget = budget

    def get_model(self):
        model = super().get_model()
        self.rec = Recognizer(len(self.charset) + 1).to(self.device)
        self._rec_pretrained()
        cfg = self.cfg
        name = "AdamW" if cfg.optimizer == "auto" else cfg.optimizer
        lr = REC_LR if cfg.optimizer == "auto" else cfg.lr0
        if name == "SGD":
            self.rec_opt = torch.optim.SGD(self.rec.parameters(), lr=lr, momentum=cfg.momentum, nesterov=True,
                                           weight_decay=cfg.weight_decay)
        else:
            self.rec_opt = getattr(torch.optim, name)(self.rec.parameters(), lr=lr, betas=(cfg.momentum, 0.999),
                                                      weight_decay=cfg.weight_decay)
        self.rec_lr, self.rec_steps = lr, 0
        self.ctc = torch.nn.CTCLoss(blank=0, zero_infinity=True)
        # float16 on CUDA with amp, as the detector (its own scaler: the two networks' gradients differ in scale)
        self.rec_scaler = torch.cuda.amp.GradScaler(enabled=self.amp)
        elapsed0 = 0.0
        if self.resume and os.path.isfile(os.path.join(self.out, "last.pt")):
            ck = read_checkpoint(os.path.join(self.out, "last.pt"), self.device, "nothing_to_resume")
            if "rec" in ck and ck["rec"]["charset"] == self.charset:
                self.rec.load_state_dict(ck["rec"]["model"])
                st = ck["rec_train"]
                self.rec_opt.load_state_dict(st["optimizer"])
                self.rec_steps, self._det_best, self._rec_best = st["steps"], st["det_best"], st["rec_best"]
                self.best_det_epoch, self.best_rec_epoch = st["best_det_epoch"], st["best_rec_epoch"]
                self._det_frozen, self._det_stale = st.get("det_frozen", False), st.get("det_stale", 0)
                self._det_full_s, self.rec_passes = st.get("det_full_s"), st.get("passes", 0)
                elapsed0 = ck.get("elapsed_s", 0.0)
                best = read_checkpoint(os.path.join(self.out, "best.pt"), "cpu", "nothing_to_resume")
                self._best_det_state, self._best_rec_state = best["model"], best["rec"]["model"]
            elif "rec" in ck:
                raise EngineError("nothing_to_resume", "the label texts changed since this run started (another "
                                                       "character set); start a new training")
        self._t0 = time.time() - elapsed0
        self.rec_net, self.rec_shard = self.rec, None
        if self.world > 1:
            # as the detector: DDP starts every process from rank 0's weights and averages the gradients in backward
            self.rec_net = parallel.wrap(self.rec, self.device)
            self.rec_shard = parallel.shard_loader(self.rec_loader, max(REC_BATCH, self.world), self.rank, self.world,
                                                   **self.loader_kw())
            if self.rank == 0:
                log(f"recognizer: batch {self.rec_shard.batch_size * self.world}, {self.rec_shard.batch_size} per "
                    "process, gradients averaged every step")
        return model

    def _rec_pretrained(self):
        """`pretrained` with an OCR checkpoint also starts the recognizer: every tensor whose name and shape match
        (all but the output layer when the character set differs)."""
        path = self.cfg.pretrained
        if not path or not os.path.isfile(path):
            return
        rec = read_checkpoint(path, "cpu").get("rec")
        if rec:
            own = self.rec.state_dict()
            ok = {k: v for k, v in rec["model"].items() if k in own and own[k].shape == v.shape}
            self.rec.load_state_dict(ok, strict=False)
            log(f"pretrained recognizer: {len(ok)}/{len(own)} tensors loaded from {path}")

    @contextlib.contextmanager
    def all_cores(self):
        """Rank 0 working alone while the helpers wait in a collective (blocked, not spinning): one thread per
        process's core."""
        if self.world == 1:
            yield
            return
        threads = torch.get_num_threads()
        torch.set_num_threads(self.world)
        try:
            yield
        finally:
            torch.set_num_threads(threads)

    # ---- the recognizer's share of each epoch, before the detector's
    def loop(self):
        try:
            return super().loop()
        finally:
            if getattr(self, "_det_full", None) is not None:
                self.train_loader = self._det_full

    def rec_seconds(self):
        """Rank 0: how long the recognizer trains this epoch. As long as the detector trained in its last epoch
        (REC_SHARE of the time), once the detector has converged as long as the detector's epochs took before; at
        least one pass over its crops (decided by the caller)."""
        det = self._det_full_s if self._det_frozen else self._det_last_s
        return det * REC_SHARE / (1 - REC_SHARE) if det else 0.0

    def set_epoch(self, epoch):
        super().set_epoch(epoch)
        if self._t_det is not None:  # the detector's last epoch, its validation included
            self._det_last_s = time.time() - self._t_det
            if not self._det_frozen:
                self._det_full_s = self._det_last_s
        if self._det_full is None:
            self._det_full = self.train_loader
        if self.world > 1:  # rank 0 decided in validate(); every rank trains the same batches
            self._det_frozen = bool(parallel.broadcast_ints([int(self._det_frozen)])[0])
        # a converged detector takes one batch per epoch (the loop, its EMA and its schedule go on unchanged) and
        # leaves the rest of the epoch to the recognizer
        self.train_loader = FirstBatches(self._det_full, 1) if self._det_frozen else self._det_full
        self.rec.train()
        t0, slice_s = time.time(), self.rec_seconds()
        loss_sum, n, passes, stop = 0.0, 0, 0, False
        while not stop:
            loss_sum, n, stop = self._rec_pass(epoch, t0, slice_s, passes, loss_sum, n)
            passes += 1
        if self.world > 1:
            loss_sum, n = parallel.all_reduce_sum(torch.tensor([loss_sum, n], dtype=torch.float64)).tolist()
        self.rec_loss = loss_sum / max(n, 1)
        self.rec_img_per_s = n / max(time.time() - t0, 1e-6)
        self.rec_passes += passes
        if self.rank == 0:
            log(f"recognizer: {passes} pass{'es' if passes > 1 else ''} over its crops in {time.time() - t0:.0f} s "
                f"({self.rec_steps} steps so far), loss {self.rec_loss:.3f}"
                + ("; detector converged, one batch per epoch" if self._det_frozen else ""))
        self._t_det = time.time()

    def rec_progress(self, epoch, frac):
        """Share of the run done, for the recognizer's schedule: of the time budget, else of the planned epochs."""
        if self.budget:
            return min(1.0, (time.time() - self._t0) / self.budget)
        return min(1.0, (epoch + frac) / max(self.epochs, 1))

    def _rec_pass(self, epoch, t0, slice_s, passes, loss_sum, n):
        """One pass over the recognizer's crops, cut short when the epoch's slice of time or the budget runs out
        (rank 0's clock). Returns (loss sum, crops, stop)."""
        self.rec_set.epoch = self.rec_passes + passes  # new augmentation and synthetic lines every pass
        # curriculum: random synthetic strings start short (a character or two) and reach full length after
        # CURRICULUM_STEPS steps: alignments of short strings are found first, and CTC leaves its all-blank
        # plateau sooner
        self.rec_set.max_len = curriculum_cap(self.rec_steps, self.rec_set.max_text)
        self.rec_set.camera = min(1.0, self.rec_steps / (2 * CURRICULUM_STEPS))
        loader = self.rec_loader if self.rec_shard is None else self.rec_shard
        nb = len(loader)
        warm = min(REC_WARMUP, max(nb * self.epochs // 10, 1))
        stop = False
        for bi, (x, targets, lengths) in enumerate(loader):
            check_cancel()
            frac = min(1.0, (time.time() - t0) / slice_s) if slice_s else (passes + bi / nb) / (passes + 1)
            f = self._lf(self.rec_progress(epoch, frac) * max(self.epochs, 1)) * min(1.0, (self.rec_steps + 1) / warm)
            for g in self.rec_opt.param_groups:
                g["lr"] = self.rec_lr * f
            with torch.autocast(self.device.type, enabled=self.amp):
                out = self.rec_net(x.to(self.device, non_blocking=True))
            logp = out.float().log_softmax(2).transpose(0, 1)  # (T, B, C); CTC in float32
            steps = torch.full((len(x),), logp.shape[0], dtype=torch.long)
            loss = self.ctc(logp, targets.to(self.device, non_blocking=True), steps, lengths)
            self.rec_opt.zero_grad(set_to_none=True)
            self.rec_scaler.scale(loss).backward()
            now = time.time()
            over = bool(self.budget and now - self._t0 > self.budget)
            # the slice ends after a whole pass at least; at the end of a pass when the slice is spent
            done = passes > 0 and now - t0 > slice_s or bi == nb - 1 and now - t0 > slice_s
            if self.world > 1:  # rank 0 keeps the clock: every process stops on this step
                over, done = parallel.broadcast_ints([over, done])
            self.rec_scaler.unscale_(self.rec_opt)
            torch.nn.utils.clip_grad_norm_(self.rec.parameters(), 5.0)
            self.rec_scaler.step(self.rec_opt)
            self.rec_scaler.update()
            self.rec_steps += 1
            loss_sum += float(loss) * len(x)
            n += len(x)
            if over or done:
                stop = True
                break
        return loss_sum, n, stop

    # ---- validation: detection, recognition on the labelled boxes, and both end to end
    def validate(self, model, final=False):
        records = self.val_records if final else self.val_quick
        with self.all_cores():
            res = V.evaluate(model, self.rec, records, self.val_texts, self.names, self.charset, self.rec_width,
                             self.cfg.imgsz, criterion=self.criterion, rec_criterion=self.ctc,
                             text_formats=self.text_formats)
        res.update(rec_loss=self.rec_loss, rec_img_per_s=self.rec_img_per_s)
        det = 0.1 * res["mAP50"] + 0.9 * res["mAP50_95"]
        rec = res["rec_char_acc"] - 1e-4 * min(res.get("rec_val_loss") or 0.0, 10.0)
        self._det_improved, self._rec_improved = det > self._det_best, rec > self._rec_best
        if not self._det_frozen:
            gained = det > self._det_best * (1 + DET_MIN_GAIN) + 1e-4
            self._det_stale = 0 if gained or max(det, self._det_best) < DET_MIN_FITNESS else self._det_stale + 1
            if self._det_stale >= DET_PATIENCE:
                self._det_frozen = True
                log(f"detector converged (fitness {max(det, self._det_best):.4f}, under {DET_MIN_GAIN:.0%} gain in "
                    f"{DET_PATIENCE} epochs): it trains one batch per epoch from now, the recognizer the rest")
        self._det_best, self._rec_best = max(det, self._det_best), max(rec, self._rec_best)
        return res

    def fitness(self, metrics):
        # patience counts epochs in which neither network improved
        return self._det_best + self._rec_best

    def meta(self):
        return {**super().meta(), "task": "ocr"}

    def rec_entry(self, state):
        return {"model": state, "charset": self.charset, "arch": self.rec.arch(), "width": self.rec_width,
                "height": REC_HEIGHT, "text_formats": self.text_formats}

    def save(self, model, ema, opt, state, improved):
        det_imp, rec_imp = (self._det_improved, self._rec_improved) if self.cfg.val else (True, True)
        epoch = state["epoch"]
        if det_imp or self._best_det_state is None:
            self._best_det_state, self.best_det_epoch = copy.deepcopy(ema.state_dict()), epoch + 1
        if rec_imp or self._best_rec_state is None:
            self._best_rec_state, self.best_rec_epoch = copy.deepcopy(self.rec.state_dict()), epoch + 1
        base = self.checkpoint_base(model)
        rec_train = {"optimizer": self.rec_opt.state_dict(), "steps": self.rec_steps, "det_best": self._det_best,
                     "rec_best": self._rec_best, "best_det_epoch": self.best_det_epoch,
                     "best_rec_epoch": self.best_rec_epoch, "det_frozen": self._det_frozen,
                     "det_stale": self._det_stale, "det_full_s": self._det_full_s, "passes": self.rec_passes}
        last = {**base, **state, "model": ema.state_dict(), "train_model": model.state_dict(),
                "optimizer": opt.state_dict(), "rec": self.rec_entry(self.rec.state_dict()), "rec_train": rec_train}
        best = {**base, "model": self._best_det_state, "epoch": epoch, "rec": self.rec_entry(self._best_rec_state),
                "best_epochs": {"detector": self.best_det_epoch, "recognizer": self.best_rec_epoch}}
        # best.pt first: a kill between the two writes leaves a last.pt whose bests are all on disk
        for name, payload in (("best.pt", best), ("last.pt", last)):
            if name == "best.pt" and not (det_imp or rec_imp or not os.path.isfile(os.path.join(self.out, name))):
                continue
            tmp = os.path.join(self.out, name + ".tmp")
            torch.save(payload, tmp)
            os.replace(tmp, os.path.join(self.out, name))
