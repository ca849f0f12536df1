"""The engine contract's output channel: JSON lines on stdout, human logs on stderr, SIGTERM as cancel."""
import json
import math
import os
import signal
import sys
import threading
import time

_cancel = {"requested": False}
_quiet = {"on": False}


def quiet():
    """Silence this process's events and logs: a data-parallel helper trains alongside the engine's own process,
    which alone speaks for the run."""
    _quiet["on"] = True


class EngineError(Exception):
    """A problem the user can fix; the CLI turns it into an `error` event and exit code 2."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Cancelled(Exception):
    """SIGTERM arrived; raised at the next batch boundary so artifacts are written before exit 130."""


def _clean(v):
    if isinstance(v, float):
        return None if math.isnan(v) or math.isinf(v) else round(v, 6)
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if hasattr(v, "item"):
        return _clean(v.item())
    return v


def emit(event, **fields):
    if _quiet["on"]:
        return
    # one object per line, flushed, so the runner never sees a half line
    sys.stdout.write(json.dumps(_clean({"event": event, **fields})) + "\n")
    sys.stdout.flush()


class Progress:
    """`progress` events (`phase`, `done`, `total`) for a loop over images: at most one every `every_s` seconds,
    and always the last, so a long test shows its advance without flooding the runner."""

    def __init__(self, phase, total, every_s=0.5):
        self.phase, self.total, self.every_s = phase, int(total), every_s
        self._last = time.monotonic()

    def step(self, done):
        now = time.monotonic()
        if done >= self.total or now - self._last >= self.every_s:
            self._last = now
            emit("progress", phase=self.phase, done=int(done), total=self.total)


def log(*parts):
    if _quiet["on"]:
        return
    sys.stderr.write(time.strftime("%H:%M:%S ") + " ".join(str(p) for p in parts) + "\n")
    sys.stderr.flush()


def install_sigterm():
    def handler(signum, frame):
        _cancel["requested"] = True
        log("SIGTERM received: stopping at the next batch")

    signal.signal(signal.SIGTERM, handler)
    _watch_parent(os.environ.get("LOUPE_PARENT_PID"))


def _watch_parent(pid, every_s=1.0):
    """The platform's runner passes its pid: when it dies (even by kill -9, which sends no SIGTERM) the engine stops
    as if cancelled, instead of training on unseen and racing a resumed run for its folder. Dead = the pid is gone,
    or our parent changed (re-parented; covers a wrapper command between the runner and the engine)."""
    if not pid or not pid.isdigit():
        return
    first_parent = os.getppid()

    def alive():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return os.getppid() == first_parent

    def watch():
        while not _cancel["requested"]:
            if not alive():
                _cancel["requested"] = True
                log(f"the process that started this engine ({pid}) is gone: stopping at the next batch")
                return
            time.sleep(every_s)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def cancel_requested():
    return _cancel["requested"]


def check_cancel():
    if _cancel["requested"]:
        raise Cancelled()
