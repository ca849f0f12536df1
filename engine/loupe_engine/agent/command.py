"""`tune`: the agent's parameter search (AGENT.md, Tuning). Optuna's TPE proposes configurations, each trains
briefly in this process (agent/trials.py) and successive halving prunes the weak ones after their first epochs;
the search ends by its budget or after `early_stop` trials without gain. Then an adoption check trains the base
and the best configuration with the same seeds: the best is adopted only when it wins by more than the seeds'
own spread (agent/adopt.py)."""
import json
import os
import time

from loupe_engine import config, device
from loupe_engine.agent import space
from loupe_engine.agent.adopt import adopt
from loupe_engine.agent.trials import Regime, count_train, train_run, trial_fraction
from loupe_engine.events import Cancelled, EngineError, check_cancel, emit, log

SEARCH_SLOTS = 6  # the budget holds this many trial slots plus 2 x seeds for the check (AGENT.md, Tuning)
MIN_BUDGET_S = 10.0
MIN_GAIN = 0.001  # a trial better than the best by less than this does not reset the early-stop count
STARTUP_TRIALS = 4  # random proposals before TPE models the results (optuna's default, 10, exceeds most budgets)


def _r(v):
    return round(v, 3) if isinstance(v, float) else v


def _clean_params(params):
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in params.items()}


class Search:
    """The state of one tuning run: the plan, the study and the trials so far."""

    def __init__(self, args, base, cfg, budget_s, seeds, early_stop):
        self.t0 = time.time()
        import optuna  # only the tuner needs it
        self.optuna, self.args, self.base, self.cfg = optuna, args, base, cfg
        self.budget_s, self.seeds, self.early_stop = budget_s, seeds, early_stop
        self.dims = space.dimensions(args.task, cfg, device.current().type == "cuda")
        self.fixed = space.base_values(self.dims, cfg)
        # a slot is the time one run should take: the search plans on 6, the check (2 x seeds runs) on the rest
        self.regime = Regime(trial_fraction(count_train(args.data, args.val)),
                             budget_s / (SEARCH_SLOTS + 2 * seeds))
        self.seed = cfg.seed or 1  # every trial the same seed: the configurations differ, not the draws
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.study = optuna.create_study(
            direction="maximize", sampler=optuna.samplers.TPESampler(seed=self.seed, n_startup_trials=STARTUP_TRIALS),
            pruner=optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3))
        self.study.enqueue_trial(self.fixed)
        self.trials, self.best, self.since_gain = [], None, 0

    def left(self):
        return self.budget_s - (time.time() - self.t0)

    def run_time(self):
        """A run's measured duration (data, epochs, validation): the mean of the complete trials'."""
        done = [t["duration_s"] for t in self.trials if t["state"] == "complete"]
        return sum(done) / len(done) if done else self.regime.limit_s

    def check_s(self):
        return 2 * self.seeds * self.run_time()

    def run_trial(self):
        trial = self.study.ask()
        base_trial = trial.number == 0
        params = space.suggest(trial, self.dims, only=self.fixed if base_trial else None)
        overrides = {**self.base, **params, **space.implied(params, self.cfg)}
        rec = {"number": trial.number, "params": _clean_params(params), "state": "running", "score": None,
               "epochs": 0, "duration_s": 0.0, "overrides": _clean_params(overrides)}
        emit("trial", **{k: v for k, v in rec.items() if k != "overrides"})
        reported = []

        def on_epoch(epoch, fit):
            reported.append(fit)
            trial.report(fit, epoch)
            if trial.should_prune():
                raise self.optuna.TrialPruned()

        start, res = time.time(), None
        try:
            res = train_run(self.args, overrides, self.regime, self.seed, self._dir(f"trial_{trial.number}"),
                            on_epoch)
            rec.update(state="complete", score=res["score"])
            self.study.tell(trial, res["score"])
        except self.optuna.TrialPruned:
            rec["state"], rec["score"] = "pruned", max(reported)
            self.study.tell(trial, state=self.optuna.trial.TrialState.PRUNED)
        except (Cancelled, EngineError):
            raise
        except RuntimeError as e:  # e.g. CUDA out of memory at a larger size: that configuration fails, not the search
            if base_trial:
                raise
            log(f"trial {trial.number} failed: {e}")
            rec["state"] = "failed"
            self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
        rec.update(epochs=res["epochs"] if res else len(reported), duration_s=round(time.time() - start, 1))
        emit("trial", **{k: v for k, v in rec.items() if k != "overrides"})
        self.trials.append(rec)
        self._count_gain(rec)
        return res

    def _count_gain(self, rec):
        if rec["state"] == "failed":
            return
        if rec["state"] == "complete" and (self.best is None or rec["score"] > self.best["score"]):
            gained = self.best is None or rec["score"] > self.best["score"] + MIN_GAIN
            self.best = rec
            if gained:
                self.since_gain = 0
                return
        self.since_gain += 1

    def _dir(self, name):
        return os.path.join(self.args.out, name)

    def search(self):
        """Trials until the budget (keeping the check's share) or the early stop ends them."""
        self.run_trial()
        if self.left() < self.run_time() + self.check_s():
            emit("note", key="tuneTooShort", params={"budget_s": _r(float(self.budget_s))})
            return False
        emit("note", key="tuneSpace", params={"keys": ", ".join(k for k, _, _ in self.dims),
                                              "fraction": _r(self.regime.fraction), "epochs": self.regime.epochs})
        log(f"tuning: {', '.join(k for k, _, _ in self.dims)}; trials on {self.regime.fraction:.0%} of the training "
            f"images, {self.regime.epochs} epochs, at most {self.regime.limit_s:.0f} s each")
        while True:
            check_cancel()
            if self.early_stop and self.since_gain >= self.early_stop:
                emit("note", key="tuneEarlyStop", params={"trials": len(self.trials), "patience": self.early_stop})
                return True
            if self.left() < self.run_time() + self.check_s():
                emit("note", key="tuneBudgetEnd", params={"trials": len(self.trials)})
                return True
            self.run_trial()

    def check(self):
        """Base and best with the same seeds: adopt()'s verdict and the scores, or {reason} when it does not run."""
        best = self.best
        if best is None or best["number"] == 0:
            return {"reason": "base_best"}
        if self.left() < 0.9 * self.check_s():
            return {"reason": "no_time"}
        emit("phase", phase="adopting")
        seeds = [self.seed + k + 1 for k in range(self.seeds)]
        scores = {}
        for name, overrides in (("base", self.base), ("tuned", best["overrides"])):
            scores[name] = []
            for s in seeds:
                check_cancel()
                res = train_run(self.args, overrides, self.regime, s, self._dir(f"check_{name}_{s}"))
                scores[name].append(res["score"] if res["score"] is not None else 0.0)
                log(f"adoption check: {name} seed {s} fitness {scores[name][-1]:.4f}")
        verdict = adopt(scores["base"], scores["tuned"])
        key = "adoptYes" if verdict["adopted"] else "adoptNo"
        emit("note", key=key, params={"gain": _r(verdict["gain"]), "noise": _r(verdict["noise"]),
                                      "base": _r(sum(scores["base"]) / len(seeds)),
                                      "tuned": _r(sum(scores["tuned"]) / len(seeds))})
        return {**verdict, "base_scores": scores["base"], "tuned_scores": scores["tuned"]}


def _settings(args):
    if not args.task or not args.data:
        raise EngineError("missing_argument", "; ".join(f"--{k} is required" for k in ("task", "data")
                                                        if not getattr(args, k, None)))
    given = {**(args.params or {}), **config.parse_set(args.set)}
    cfg = config.validate(given)
    base = {k: getattr(cfg, k) for k in given}  # typed as validated ("64" from --set is 64)
    problems = []
    budget = args.budget_s
    if budget is None or not float(budget) > 0:
        problems.append("budget_s: a positive number of seconds is required")
    seeds = 2 if args.seeds is None else args.seeds
    if not isinstance(seeds, int) or not 1 <= seeds <= 5:
        problems.append(f"seeds={seeds!r}: must be an integer from 1 to 5")
    early = cfg.agent_early_stop if args.early_stop is None else args.early_stop
    if not isinstance(early, int) or not 0 <= early <= 100:
        problems.append(f"early_stop={early!r}: must be an integer from 0 to 100")
    if problems:
        raise EngineError("invalid_parameters", "; ".join(problems))
    return base, cfg, float(budget), seeds, early


def tune(args):
    base, cfg, budget, seeds, early = _settings(args)
    os.makedirs(args.out, exist_ok=True)
    emit("phase", phase="tuning")
    summary = {"trials": 0, "best_params": {}, "base_scores": [], "tuned_scores": [], "adopted": False,
               "gain": None, "noise": None, "chosen_params": base}
    if budget < MIN_BUDGET_S:
        emit("note", key="tuneTooShort", params={"budget_s": _r(budget)})
        emit("note", key="adoptSkipped", params={"reason": "no_time"})
        return _finish(args, summary, [], None)
    s = Search(args, base, cfg, budget, seeds, early)
    verdict = s.check() if s.search() else {"reason": "no_time"}
    summary.update(trials=len(s.trials), best_params=s.best["params"] if s.best else {})
    if "reason" in verdict:
        emit("note", key="adoptSkipped", params={"reason": verdict["reason"]})
        log(f"keeping the base configuration ({verdict['reason']})")
    else:
        summary.update(verdict)
        if verdict["adopted"]:
            summary["chosen_params"] = s.best["overrides"]
    return _finish(args, summary, s.trials, s)


def _finish(args, summary, trials, search):
    """tune.json: the `done` summary, every trial (with the full overrides it trained) and the plan."""
    out = {"summary": summary, "trials": trials}
    if search:
        out.update(space=[{"key": k, "kind": kind, "values": list(v)} for k, kind, v in search.dims],
                   regime={"fraction": search.regime.fraction, "epochs": search.regime.epochs,
                           "limit_s": round(search.regime.limit_s, 1)},
                   duration_s=round(time.time() - search.t0, 1))
    path = os.path.join(args.out, "tune.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, path)  # whole or absent: the runner reads it after `done`
    emit("artifact", kind="tune", path=path)
    emit("done", summary=summary)
    return summary
