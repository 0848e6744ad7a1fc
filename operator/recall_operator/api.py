"""The API group and version the recall kinds are served at (see crds/), named once for every module."""

GROUP = "recall.dev"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"


def namespaced(namespace: str | None) -> str:
    """The namespace of one of the recall kinds (or of a Job or Event they own), all namespaced.

    Kopf types a handler's namespace as optional, for cluster-scoped kinds;
    none of ours is, so a missing one is a bug to name, not a value to guess.
    """
    if not namespace:
        raise ValueError("a namespaced object arrived without a namespace")
    return namespace
