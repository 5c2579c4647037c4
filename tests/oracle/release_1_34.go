//go:build k8s134

// Kubernetes 1.34's forms of what release_1_37.go wraps (build with go134.mod and -tags k8s134).

package main

import (
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

// baseEnvSet: 1.34's MustBaseEnvSet takes strictCost, which the CRD code passes as true
// (apiextensions validation.go, schema/cel/validation.go).
func baseEnvSet(v *version.Version) *environment.EnvSet {
	return environment.MustBaseEnvSet(v, true)
}

// validatePathSegment: 1.34's rest passes path.ValidatePathSegmentName.
func validatePathSegment(name string, prefix bool) []string {
	return path.ValidatePathSegmentName(name, prefix)
}
