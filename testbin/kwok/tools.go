//go:build tools

// Package tools pins the kwok command (fake kubelets) that scripts/testbin.sh builds.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
