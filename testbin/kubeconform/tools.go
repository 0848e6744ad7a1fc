//go:build tools

// Package tools pins kubeconform, which the chart tests run on the rendered
// manifests with the Kubernetes and CRD schemas (no network: the schemas are
// generated locally from the test API server's OpenAPI).
package tools

import (
	_ "github.com/yannh/kubeconform/cmd/kubeconform"
)
