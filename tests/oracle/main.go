// Command oracle answers "what does the Kubernetes apiserver do?" for CRDs, custom resources
// and CEL validation scenarios by calling the apiserver's own code (k8s.io/apiextensions-apiserver,
// k8s.io/apiserver). See README.md for the subcommands and their JSON output.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/klog/v2"
)

const usage = `usage:
  oracle check-crd FILE...
  oracle validate --crd FILE [--version V] [--old FILE] [--subresource status] [--namespace NS] [--field-validation Strict|Warn|Ignore] OBJECT
  oracle eval VECTOR.json...
  oracle corpus [--json] [--details] CORPUS_DIR SET...
  oracle probe PROBES.json
  oracle yaml-to-json FILE
  oracle version
  oracle bench -crd CRD [-old OLD] [-subresource status] [-n N] OBJECT | oracle bench -list FILE`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	// The registry's own logging (for example rest.RecordDuplicateValidationErrors' "Found
	// duplicate validation error") is not part of any answer.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	args := os.Args[2:]
	switch os.Args[1] {
	case "check-crd":
		os.Exit(cmdCheckCRD(args))
	case "validate":
		os.Exit(cmdValidate(args))
	case "eval":
		os.Exit(cmdEval(args))
	case "corpus":
		os.Exit(cmdCorpus(args))
	case "probe":
		os.Exit(cmdProbe(args))
	case "yaml-to-json":
		os.Exit(cmdYAMLToJSON(args))
	case "version":
		cmdVersion()
	case "bench":
		os.Exit(cmdBench(args))
	case "-h", "--help", "help":
		fmt.Println(usage)
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
}

func cmdVersion() {
	fmt.Printf("cel compatibility version (new expressions): %s\n", environment.DefaultCompatibilityVersion())
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Printf("go: %s\n", bi.GoVersion)
		for _, d := range bi.Deps {
			if strings.HasPrefix(d.Path, "k8s.io/") || d.Path == "github.com/google/cel-go" {
				fmt.Printf("%s %s\n", d.Path, d.Version)
			}
		}
	}
}
