"""The `recall` command: one entry point, each subcommand in the module that owns it."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="recall", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    # Each module registers its own subcommand so that its flags live beside its code.
    from recall_operator import cluster, replay

    cluster.register(sub)
    replay.register(sub)
    try:
        from recall_operator import runner
    except ImportError:  # the operator entry point arrives with its own issue
        runner = None
    if runner is not None:
        runner.register(sub)
    try:
        from recall_operator import demo
    except ImportError:
        demo = None
    if demo is not None:
        demo.register(sub)

    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
