"""Kubernetes-facing builders: manifests and status patches, as pure functions."""
