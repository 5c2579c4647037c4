package main

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// cmdYAMLToJSON prints FILE's YAML document as JSON, as kubectl reads YAML
// (sigs.k8s.io/yaml.YAMLToJSON: go-yaml v2's YAML 1.1 scalars).
func cmdYAMLToJSON(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: oracle yaml-to-json FILE")
		return 2
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	out, err := yaml.YAMLToJSON(data)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", args[0], err)
		return 1
	}
	fmt.Println(string(out))
	return 0
}
