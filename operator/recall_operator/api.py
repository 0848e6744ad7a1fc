"""The API group and version the recall kinds are served at (see crds/), named once for every module."""

GROUP = "recall.dev"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"
