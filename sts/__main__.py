"""``python -m sts``: the same as the ``sts`` command."""

from sts.cli import main

main(prog_name="sts")
