"""recall-operator: incident memory for Kubernetes that an on-call engineer can challenge."""

GROUP = "recall.dev"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"
