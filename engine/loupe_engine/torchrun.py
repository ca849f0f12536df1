"""`python3 -m loupe_engine.torchrun`: torchrun (torch.distributed.run), with the same arguments, made to work on
Debian's torch 1.13 under Python 3.11.

Torch 1.13 reads `--redirects` and `--tee` (default "0") by looking the number up among the members of an IntFlag,
and Python 3.11 no longer lists a flag's zero member: "0" becomes None and torchrun fails before it starts a process
(AttributeError: 'NoneType' object has no attribute 'get'). Here the number is converted by value, which every
Python accepts; a torch whose torchrun parses them itself is left as it is.

The runner's command line for N GPUs (engine/HARDWARE.md, GPU runners):
    python3 -m loupe_engine.torchrun --standalone --nproc_per_node=N -m loupe_engine train --spec job.json \
        --workdir DIR
"""
import re
import sys


def _patch_std():
    from torch.distributed.elastic.multiprocessing import api

    def from_str(vm):
        if re.match(api._VALUE_REGEX, vm):
            return api.Std(int(vm))
        if re.match(api._MAPPING_REGEX, vm):
            return {int(i): api.Std(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
        raise ValueError(f"{vm} does not match: <{api._VALUE_REGEX}> or <{api._MAPPING_REGEX}>")

    try:
        broken = api.Std.from_str("0") is None
    except Exception:  # noqa: BLE001 - a torch that parses otherwise: leave it alone
        broken = False
    if broken:
        api.Std.from_str = staticmethod(from_str)


def main(argv=None):
    _patch_std()
    from torch.distributed import run
    run.main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
