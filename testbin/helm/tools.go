//go:build tools

// Package tools pins the helm command that scripts/testbin.sh builds for the
// chart tests (helm lint, helm template).
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
)
