"""The `recall` command: one entry point, each subcommand in the module that owns it."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module registers its own subcommand, so that its flags live beside its code.
SUBCOMMAND_MODULES = ("cluster", "replay", "runner", "demo", "bench", "memory.hindsight_server", "panel")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="recall", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(f"recall_operator.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"recall_operator.{name}":
                raise
            continue
        module.register(sub)
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
