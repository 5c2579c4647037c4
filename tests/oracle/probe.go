package main

// probe: compile many rules against one schema each, the way CRD validation compiles the rules of
// a node (cel.Compile with model.SchemaDeclType), and print each rule's verdict. It is the
// reference for crd-cel's type checker tests (tests/probes).

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

type probeFile struct {
	Groups []probeGroup `json:"groups"`
}

type probeGroup struct {
	Name           string          `json:"name"`
	Env            string          `json:"env"`
	IsResourceRoot bool            `json:"isResourceRoot"`
	Schema         json.RawMessage `json:"schema"`
	Rules          []probeRule     `json:"rules"`
}

type probeRule struct {
	Rule              string `json:"rule"`
	MessageExpression string `json:"messageExpression,omitempty"`
	OptionalOldSelf   *bool  `json:"optionalOldSelf,omitempty"`
}

type probeResult struct {
	Rule                   string `json:"rule"`
	MessageExpression      string `json:"messageExpression,omitempty"`
	OptionalOldSelf        *bool  `json:"optionalOldSelf,omitempty"`
	Error                  string `json:"error,omitempty"`
	MessageExpressionError string `json:"messageExpressionError,omitempty"`
	TransitionRule         bool   `json:"transitionRule,omitempty"`
	MaxCost                uint64 `json:"maxCost"`
}

type probeGroupOut struct {
	Name    string        `json:"name"`
	Results []probeResult `json:"results"`
}

func cmdProbe(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: oracle probe FILE.json")
		return 2
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var pf probeFile
	if err := json.Unmarshal(data, &pf); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var out []probeGroupOut
	for _, g := range pf.Groups {
		envSet, loader, ok := envFor(g.Env)
		if !ok {
			fmt.Fprintf(os.Stderr, "group %s: unsupported env %q\n", g.Name, g.Env)
			return 2
		}
		var props map[string]interface{}
		if err := json.Unmarshal(g.Schema, &props); err != nil {
			fmt.Fprintf(os.Stderr, "group %s: %v\n", g.Name, err)
			return 2
		}
		rules := make([]interface{}, 0, len(g.Rules))
		for _, r := range g.Rules {
			m := map[string]interface{}{"rule": r.Rule}
			if r.MessageExpression != "" {
				m["messageExpression"] = r.MessageExpression
			}
			if r.OptionalOldSelf != nil {
				m["optionalOldSelf"] = *r.OptionalOldSelf
			}
			rules = append(rules, m)
		}
		props["x-kubernetes-validations"] = rules
		schemaJSON, _ := json.Marshal(props)
		s, err := structuralFromJSON(schemaJSON)
		if err != nil {
			fmt.Fprintf(os.Stderr, "group %s: %v\n", g.Name, err)
			return 2
		}
		declType := model.SchemaDeclType(s, g.IsResourceRoot)
		results, err := cel.Compile(s, declType, celconfig.PerCallLimit, envSet, loader)
		if err != nil {
			fmt.Fprintf(os.Stderr, "group %s: %v\n", g.Name, err)
			return 2
		}
		gout := probeGroupOut{Name: g.Name}
		for i, r := range g.Rules {
			res := probeResult{Rule: r.Rule, MessageExpression: r.MessageExpression, OptionalOldSelf: r.OptionalOldSelf}
			c := results[i]
			if c.Error != nil {
				res.Error = normalize(c.Error.Detail)
			} else {
				res.TransitionRule = c.UsesOldSelf
				res.MaxCost = c.MaxCost
			}
			if c.MessageExpressionError != nil {
				res.MessageExpressionError = normalize(c.MessageExpressionError.Detail)
			}
			gout.Results = append(gout.Results, res)
		}
		out = append(out, gout)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]interface{}{"groups": out}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}
