//go:build tools

// Package tools pins kube-score, which the chart tests run on the rendered
// manifests (a platform team's usual acceptance check).
package tools

import (
	_ "github.com/zegl/kube-score/cmd/kube-score"
)
