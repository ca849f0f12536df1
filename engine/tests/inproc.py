"""Run the engine's CLI inside the test process (no interpreter start-up, ~2.5 s saved per call); the subprocess
helper in conftest.py stays the way to test signals and exit codes as the runner sees them."""
import contextlib
import io
import json

from loupe_engine.cli import main


def run(*args, check=True):
    """Returns (exit code, events, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    events = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    if check and code != 0:
        raise AssertionError(f"engine exited {code}: {err.getvalue()[-2000:]}")
    return code, events, err.getvalue()
