"""Dev tooling for recall-operator: the local control plane, `recall demo` and `recall bench`.

A distribution of its own, recall-operator-dev (dev/pyproject.toml in the
checkout; `pip install -e ./dev`, which brings `cryptography`, used only by the
local control plane's certificates), so that the operator never depends on it:
the operator's wheel and image are built without it. The `recall` command
reaches it lazily, for its dev subcommands only.
"""

# Its one dependency, imported up front: without it every dev command fails
# here, where `recall` can tell the user what to install, rather than midway
# through starting a control plane.
import cryptography  # noqa: F401
