"""The `recall` command: one entry point, each subcommand in the module that owns it."""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

# Each module registers its own subcommand, so that its flags live beside its code.
SUBCOMMAND_MODULES = ("replay", "runner", "memory.hindsight_server", "panel")

# The dev tooling's subcommands live in the recall_operator_dev package, a
# distribution of its own (recall-operator-dev, dev/pyproject.toml in the
# checkout) left out of the operator's wheel and image. They are imported only
# here, so that the operator itself never depends on them.
DEV_SUBCOMMANDS = ("cluster", "demo", "bench", "ablation")
DEV_INSTALL = "pip install -e ./dev from a checkout (recall-operator-dev; make venv installs it)"


def _dev_module(name: str) -> ModuleType | None:
    """The dev module behind `recall NAME`, or None when the dev tooling is not installed."""
    try:
        return importlib.import_module(f"recall_operator_dev.{name}")
    except ModuleNotFoundError as exc:
        # Only the dev package or its own dependency being absent means "not
        # installed"; anything else missing is a real error.
        if (exc.name or "").split(".")[0] in ("recall_operator_dev", "cryptography"):
            return None
        raise


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="recall", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(f"recall_operator.{name}").register(sub)
    for name in DEV_SUBCOMMANDS:
        module = _dev_module(name)
        if module is not None:
            module.register(sub)
            continue
        if argv and argv[0] == name:
            print(f"recall {name}: part of the dev tooling, which is not installed: {DEV_INSTALL}", file=sys.stderr)
            return 2
        sub.add_parser(name, help="dev tooling, not installed (recall-operator-dev)")
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
