"""Dev tooling for recall-operator: the local control plane, `recall demo` and `recall bench`.

A package of its own so that the operator never depends on it: it needs the
`dev` extra (`pip install '.[dev]'`, for `cryptography`, which only the local
control plane's certificates use), and the operator image is built without it.
The `recall` command reaches it lazily, for its dev subcommands only.
"""

# The extra's one dependency, imported up front: without it every dev command
# fails here, where `recall` can tell the user which extra to install, rather
# than midway through starting a control plane.
import cryptography  # noqa: F401
