"""``python -m sts`` and the ``sts`` command."""

import gc
import sys


def run() -> None:
    """Run the command line. Its imports (`sts.cli`, and the module of the command named by the
    first argument, when it names one) run with the cyclic collector paused, and the objects
    they build (modules, classes, functions: they live as long as the process) are then frozen
    out of every later collection, the one at exit included: collecting them cost about 9% of
    the instructions of converting a small file."""
    gc.disable()
    from sts.cli import command, main

    if len(sys.argv) > 1:
        command(sys.argv[1])
    gc.freeze()
    gc.enable()
    main(prog_name="sts")


if __name__ == "__main__":
    run()
