//go:build !k8s134

// The parts of the apiserver's API that changed between the releases the oracle is built
// against: this file for the default release (go.mod, 1.37), release_1_34.go for 1.34
// (go134.mod, -tags k8s134). Everything else is the same source.

package main

import (
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

// baseEnvSet is the CEL environment set of a compatibility version, as the CRD code builds it.
func baseEnvSet(v *version.Version) *environment.EnvSet {
	return environment.MustBaseEnvSet(v)
}

// validatePathSegment is the name check rest.BeforeCreate / BeforeUpdate pass to
// ValidateObjectMetaAccessor (rest's unexported validatePathSegment).
func validatePathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
