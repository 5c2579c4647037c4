package main

// oracle eval: run the scenario vectors of ../shared/reference/vectors (and tests/cases, which
// use the same format plus two modes of their own) through the apiserver code and compare the
// result with each case's "expect".

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/version"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
)

type harness struct {
	Mode             string          `json:"mode"`
	RootPath         *string         `json:"rootPath"`
	IsResourceRoot   bool            `json:"isResourceRoot"`
	CostBudget       *int64          `json:"costBudget"`
	PerCallLimit     *int64          `json:"perCallLimit"`
	Env              string          `json:"env"`
	Ratcheting       bool            `json:"ratcheting"`
	FeatureGates     map[string]bool `json:"featureGates"`
	SchemaPathPrefix string          `json:"schemaPathPrefix"`
	// validate mode
	Namespace       string `json:"namespace"`
	FieldValidation string `json:"fieldValidation"`
}

type vectorFile struct {
	ID              string            `json:"id"`
	Harness         json.RawMessage   `json:"harness"`
	Schema          json.RawMessage   `json:"schema"`
	Object          json.RawMessage   `json:"object"`
	OldObject       json.RawMessage   `json:"oldObject"`
	OpenAPIV3Schema json.RawMessage   `json:"openAPIV3Schema"`
	CRD             json.RawMessage   `json:"crd"`
	Expect          *expectation      `json:"expect"`
	Cases           []json.RawMessage `json:"cases"`
}

type caseFile struct {
	Name            string                 `json:"name"`
	Rule            *string                `json:"rule"`
	Rules           json.RawMessage        `json:"rules"`
	Schema          json.RawMessage        `json:"schema"`
	Object          json.RawMessage        `json:"object"`
	OldObject       json.RawMessage        `json:"oldObject"`
	OpenAPIV3Schema json.RawMessage        `json:"openAPIV3Schema"`
	CRD             json.RawMessage        `json:"crd"`
	Subresource     string                 `json:"subresource"`
	Version         string                 `json:"version"`
	HarnessOverride map[string]interface{} `json:"harnessOverride"`
	Expect          *expectation           `json:"expect"`
	Unbounded       *estimateCase          `json:"unbounded"`
	Bounded         *estimateCase          `json:"bounded"`
}

type estimateCase struct {
	Schema                  json.RawMessage `json:"schema"`
	EstimatedMaxCost        *uint64         `json:"estimatedMaxCost"`
	EstimatedMaxCostAtLeast *uint64         `json:"estimatedMaxCostAtLeast"`
}

type expectation struct {
	Result          string          `json:"result"`
	Errors          []expectedError `json:"errors"`
	Warnings        []string        `json:"warnings"`
	RuntimeCost     *int64          `json:"runtimeCost"`
	RemainingBudget *int64          `json:"remainingBudget"`
	TextContains    []string        `json:"textContains"`
	Rules           []expectedRule  `json:"rules"`
}

type expectedError struct {
	Type            string `json:"type"`
	Field           string `json:"field"`
	Detail          string `json:"detail"`
	DetailContains  string `json:"detailContains"`
	DetailPrefix    string `json:"detailPrefix"`
	Message         string `json:"message"`
	Asserted        string `json:"asserted"`
	MessageAsserted string `json:"messageAsserted"`
}

type expectedRule struct {
	Path           string  `json:"path"`
	MaxCost        *uint64 `json:"maxCost"`
	EstimatedCost  *uint64 `json:"estimatedCost"`
	MaxCardinality *uint64 `json:"maxCardinality"`
}

type estimateOut struct {
	EstimatedMaxCost uint64 `json:"estimatedMaxCost"`
	CompileError     string `json:"compileError,omitempty"`
}

type caseOut struct {
	Name string `json:"name"`
	// runtime mode
	Result          string      `json:"result,omitempty"`
	Errors          []errorJSON `json:"errors,omitempty"`
	Warnings        []string    `json:"warnings,omitempty"`
	RuntimeCost     *int64      `json:"runtimeCost,omitempty"`
	RemainingBudget *int64      `json:"remainingBudget,omitempty"`
	// estimate mode
	Unbounded *estimateOut `json:"unbounded,omitempty"`
	Bounded   *estimateOut `json:"bounded,omitempty"`
	// crd-create mode: the check-crd output
	Check *checkResult `json:"check,omitempty"`
	// validate mode: the validate output
	Validate *validateResult `json:"validate,omitempty"`

	Agreement  string   `json:"agreement"` // agree | disagree | unchecked (no expectation)
	Mismatches []string `json:"mismatches,omitempty"`
}

type evalSummary struct {
	Cases     int `json:"cases"`
	Agree     int `json:"agree"`
	Disagree  int `json:"disagree"`
	Unchecked int `json:"unchecked"`
}

type evalOut struct {
	ID      string      `json:"id"`
	Mode    string      `json:"mode"`
	Cases   []caseOut   `json:"cases"`
	Summary evalSummary `json:"summary"`
}

func present(r json.RawMessage) bool { return len(r) > 0 }

func mergeHarness(base json.RawMessage, override map[string]interface{}) (harness, error) {
	m := map[string]interface{}{}
	if present(base) {
		dec := json.NewDecoder(strings.NewReader(string(base)))
		dec.UseNumber() // keep int64 budgets exact
		if err := dec.Decode(&m); err != nil {
			return harness{}, err
		}
	}
	for k, v := range override {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	var h harness
	if err := json.Unmarshal(b, &h); err != nil {
		return harness{}, err
	}
	return h, nil
}

func evalVectorFile(path string) (*evalOut, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v vectorFile
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	base, err := mergeHarness(v.Harness, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: harness: %w", path, err)
	}
	out := &evalOut{ID: v.ID, Mode: base.Mode, Cases: []caseOut{}}
	cases := v.Cases
	if len(cases) == 0 {
		// a vector without cases is one case made of the vector itself
		b, _ := json.Marshal(map[string]interface{}{"name": v.ID})
		cases = []json.RawMessage{b}
	}
	for i, raw := range cases {
		var c caseFile
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("%s: case %d: %w", path, i, err)
		}
		if c.Name == "" {
			if c.Rule != nil {
				c.Name = *c.Rule
			} else {
				c.Name = fmt.Sprintf("case %d", i)
			}
		}
		h, err := mergeHarness(v.Harness, c.HarnessOverride)
		if err != nil {
			return nil, fmt.Errorf("%s: case %d: %w", path, i, err)
		}
		exp := c.Expect
		if exp == nil && len(v.Cases) == 0 {
			exp = v.Expect
		}
		var co caseOut
		switch h.Mode {
		case "runtime":
			co = evalRuntime(h, &v, &c, exp)
		case "estimate":
			co = evalEstimate(h, &c)
		case "crd-create":
			co = evalCRDCreate(h, &v, &c, exp)
		case "validate":
			co = evalValidate(h, &v, &c, exp)
		default:
			return nil, fmt.Errorf("%s: unknown harness mode %q", path, h.Mode)
		}
		co.Name = c.Name
		if co.Agreement == "" {
			if len(co.Mismatches) > 0 {
				co.Agreement = "disagree"
			} else {
				co.Agreement = "agree"
			}
		}
		out.Cases = append(out.Cases, co)
		out.Summary.Cases++
		switch co.Agreement {
		case "agree":
			out.Summary.Agree++
		case "disagree":
			out.Summary.Disagree++
		default:
			out.Summary.Unchecked++
		}
	}
	return out, nil
}

func pick(a, b json.RawMessage) json.RawMessage {
	if present(a) {
		return a
	}
	return b
}

// withRules returns the schema with its root x-kubernetes-validations replaced.
func withRules(schemaJSON json.RawMessage, rules interface{}) (json.RawMessage, error) {
	var m map[string]interface{}
	if err := json.Unmarshal(schemaJSON, &m); err != nil {
		return nil, err
	}
	m["x-kubernetes-validations"] = rules
	return json.Marshal(m)
}

func errorCase(msg string) caseOut {
	return caseOut{Result: "error", Agreement: "disagree", Mismatches: []string{"oracle could not run the case: " + msg}}
}

func evalRuntime(h harness, v *vectorFile, c *caseFile, exp *expectation) caseOut {
	schemaJSON := pick(c.Schema, v.Schema)
	var err error
	if c.Rule != nil {
		schemaJSON, err = withRules(schemaJSON, []map[string]string{{"rule": *c.Rule}})
	} else if present(c.Rules) {
		var rules interface{}
		_ = json.Unmarshal(c.Rules, &rules)
		schemaJSON, err = withRules(schemaJSON, rules)
	}
	if err != nil {
		return errorCase(err.Error())
	}
	s, err := structuralFromJSON(schemaJSON)
	if err != nil {
		return errorCase(err.Error())
	}
	obj, err := decodeValue(pick(c.Object, v.Object))
	if err != nil {
		return errorCase(err.Error())
	}
	old, err := decodeValue(pick(c.OldObject, v.OldObject))
	if err != nil {
		return errorCase(err.Error())
	}
	budget := int64(celconfig.RuntimeCELCostBudget)
	if h.CostBudget != nil {
		budget = *h.CostBudget
	}
	perCall := uint64(celconfig.PerCallLimit)
	if h.PerCallLimit != nil {
		perCall = uint64(*h.PerCallLimit)
	}
	var root *field.Path
	if h.RootPath != nil && *h.RootPath != "" && *h.RootPath != "<nil>" {
		root = field.NewPath(*h.RootPath)
	}
	rec := &warningRecorder{}
	ctx := warning.WithWarningRecorder(context.Background(), rec)
	var errs field.ErrorList
	remaining := budget
	if validator := cel.NewValidator(s, h.IsResourceRoot, perCall); validator != nil {
		var opts []cel.Option
		if h.Ratcheting {
			opts = append(opts, cel.WithRatcheting(common.NewCorrelatedObject(obj, old, &model.Structural{Structural: s})))
		}
		errs, remaining = validator.Validate(ctx, root, s, obj, old, budget, opts...)
	}
	co := caseOut{Result: "pass", Errors: []errorJSON{}, Warnings: rec.list()}
	if len(errs) > 0 {
		co.Result = "error"
	}
	for _, e := range sortErrors(errs) {
		co.Errors = append(co.Errors, renderError(e))
	}
	cost := budget - remaining
	co.RuntimeCost, co.RemainingBudget = &cost, &remaining
	if exp == nil {
		co.Agreement = "unchecked"
		return co
	}
	co.Mismatches = compareCommon(exp, co.Result, co.Errors, co.Warnings)
	if exp.RuntimeCost != nil && *exp.RuntimeCost != cost {
		co.Mismatches = append(co.Mismatches, fmt.Sprintf("runtimeCost: expected %d, oracle %d", *exp.RuntimeCost, cost))
	}
	if exp.RemainingBudget != nil && *exp.RemainingBudget != remaining {
		co.Mismatches = append(co.Mismatches, fmt.Sprintf("remainingBudget: expected %d, oracle %d", *exp.RemainingBudget, remaining))
	}
	return co
}

var newAtVersion = regexp.MustCompile(`^new@1\.([0-9]+)$`)

// envFor maps the vector "env" to an EnvSet and loader. ok=false if the env is not supported.
func envFor(env string) (*environment.EnvSet, cel.EnvLoader, bool) {
	switch {
	case env == "" || env == "new@DefaultCompatibilityVersion":
		return baseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader(), true
	case env == "stored":
		return baseEnvSet(environment.DefaultCompatibilityVersion()), cel.StoredExpressionsEnvLoader(), true
	case newAtVersion.MatchString(env):
		minor, _ := strconv.Atoi(newAtVersion.FindStringSubmatch(env)[1])
		return baseEnvSet(version.MajorMinor(1, uint(minor))), cel.NewExpressionsEnvLoader(), true
	}
	return nil, nil, false
}

func estimateOne(h harness, e *estimateCase) (*estimateOut, []string) {
	envSet, loader, ok := envFor(h.Env)
	if !ok {
		return nil, []string{"unsupported env " + h.Env}
	}
	s, err := structuralFromJSON(e.Schema)
	if err != nil {
		return &estimateOut{CompileError: err.Error()}, []string{err.Error()}
	}
	declType := model.SchemaDeclType(s, h.IsResourceRoot)
	results, err := cel.Compile(s, declType, celconfig.PerCallLimit, envSet, loader)
	out := &estimateOut{}
	if err != nil {
		out.CompileError = err.Error()
	} else if len(results) != 1 {
		out.CompileError = fmt.Sprintf("expected one rule at the root, found %d", len(results))
	} else if results[0].Error != nil {
		out.CompileError = normalize(results[0].Error.Detail)
	} else {
		out.EstimatedMaxCost = results[0].MaxCost
	}
	var mm []string
	if out.CompileError != "" {
		mm = append(mm, "compile error: "+out.CompileError)
	}
	if e.EstimatedMaxCost != nil && *e.EstimatedMaxCost != out.EstimatedMaxCost {
		mm = append(mm, fmt.Sprintf("estimatedMaxCost: expected %d, oracle %d", *e.EstimatedMaxCost, out.EstimatedMaxCost))
	}
	if e.EstimatedMaxCostAtLeast != nil && out.EstimatedMaxCost < *e.EstimatedMaxCostAtLeast {
		mm = append(mm, fmt.Sprintf("estimatedMaxCost: expected at least %d, oracle %d", *e.EstimatedMaxCostAtLeast, out.EstimatedMaxCost))
	}
	return out, mm
}

func evalEstimate(h harness, c *caseFile) caseOut {
	co := caseOut{}
	checked := false
	if c.Unbounded != nil {
		var mm []string
		co.Unbounded, mm = estimateOne(h, c.Unbounded)
		co.Mismatches = append(co.Mismatches, prefixAll("unbounded: ", mm)...)
		checked = checked || c.Unbounded.EstimatedMaxCost != nil || c.Unbounded.EstimatedMaxCostAtLeast != nil
	}
	if c.Bounded != nil {
		var mm []string
		co.Bounded, mm = estimateOne(h, c.Bounded)
		co.Mismatches = append(co.Mismatches, prefixAll("bounded: ", mm)...)
		checked = checked || c.Bounded.EstimatedMaxCost != nil || c.Bounded.EstimatedMaxCostAtLeast != nil
	}
	if !checked && len(co.Mismatches) == 0 {
		co.Agreement = "unchecked"
	}
	return co
}

func prefixAll(p string, xs []string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, p+x)
	}
	return out
}

// syntheticCRD wraps an openAPIV3Schema into a minimal single-version v1 CRD.
func syntheticCRD(schemaJSON json.RawMessage) []byte {
	crd := map[string]interface{}{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]interface{}{"name": "widgets.example.com"},
		"spec": map[string]interface{}{
			"group": "example.com",
			"scope": "Namespaced",
			"names": map[string]interface{}{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []interface{}{map[string]interface{}{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]interface{}{"openAPIV3Schema": json.RawMessage(schemaJSON)},
			}},
		},
	}
	b, _ := json.Marshal(crd)
	return b
}

func evalCRDCreate(h harness, v *vectorFile, c *caseFile, exp *expectation) caseOut {
	var crdJSON []byte
	if crd := pick(c.CRD, v.CRD); present(crd) {
		crdJSON = crd
	} else if s := pick(c.OpenAPIV3Schema, v.OpenAPIV3Schema); present(s) {
		crdJSON = syntheticCRD(s)
	} else {
		return errorCase("crd-create case without crd or openAPIV3Schema")
	}
	if env := h.Env; env != "" && env != "new@DefaultCompatibilityVersion" {
		co := errorCase("CRD validation always uses DefaultCompatibilityVersion; env " + env + " is not supported")
		co.Agreement = "unchecked"
		return co
	}
	res := checkCRDDocument(document{File: "<inline>", JSON: crdJSON})
	co := caseOut{Check: &res}
	if exp == nil {
		co.Agreement = "unchecked"
		return co
	}
	result := "pass"
	if !res.Accepted {
		result = "error"
	}
	var actual []errorJSON
	for _, e := range res.structured {
		actual = append(actual, renderError(e))
	}
	if res.structured == nil && !res.Accepted {
		actual = append(actual, errorJSON{Message: res.Text})
	}
	co.Mismatches = compareCommon(exp, result, actual, nil)
	co.Mismatches = append(co.Mismatches, textContains(exp.TextContains, res.Text)...)
	for _, er := range exp.Rules {
		var found *ruleJSON
		for i := range res.Rules {
			if res.Rules[i].Path == er.Path {
				found = &res.Rules[i]
			}
		}
		if found == nil {
			co.Mismatches = append(co.Mismatches, "no rule at "+er.Path)
			continue
		}
		cmp := func(name string, want *uint64, got uint64) {
			if want != nil && *want != got {
				co.Mismatches = append(co.Mismatches, fmt.Sprintf("%s %s: expected %d, oracle %d", er.Path, name, *want, got))
			}
		}
		cmp("maxCost", er.MaxCost, found.MaxCost)
		cmp("estimatedCost", er.EstimatedCost, found.EstimatedCost)
		cmp("maxCardinality", er.MaxCardinality, found.MaxCardinality)
	}
	return co
}

func evalValidate(h harness, v *vectorFile, c *caseFile, exp *expectation) caseOut {
	crdJSON := pick(c.CRD, v.CRD)
	if !present(crdJSON) {
		return errorCase("validate case without crd")
	}
	crd, err := decodeCRDV1(crdJSON)
	if err != nil {
		return errorCase(err.Error())
	}
	objJSON := pick(c.Object, v.Object)
	ver := versionFor(objJSON, c.Version)
	srv, err := newCRServer(crd, ver)
	if err != nil {
		return errorCase(err.Error())
	}
	o := validateOptions{Subresource: c.Subresource, Namespace: "default", FieldValidation: "Warn"}
	if h.Namespace != "" {
		o.Namespace = h.Namespace
	}
	if h.FieldValidation != "" {
		o.FieldValidation = h.FieldValidation
	}
	if old := pick(c.OldObject, v.OldObject); present(old) && string(old) != "null" {
		o.Old = old
	}
	res := srv.validate(objJSON, o)
	co := caseOut{Validate: &res}
	if exp == nil {
		co.Agreement = "unchecked"
		return co
	}
	result := "pass"
	if !res.Valid {
		result = "error"
	}
	co.Mismatches = compareCommon(exp, result, res.Errors, res.Warnings)
	co.Mismatches = append(co.Mismatches, textContains(exp.TextContains, res.Text)...)
	return co
}

func textContains(wants []string, text string) []string {
	var mm []string
	for _, w := range wants {
		if !strings.Contains(text, w) {
			mm = append(mm, fmt.Sprintf("text does not contain %q", w))
		}
	}
	return mm
}

func loose(asserted string) bool { return strings.Contains(asserted, "contains") }

func errorMatches(e expectedError, a errorJSON) bool {
	if e.Type != "" && e.Type != a.Type {
		return false
	}
	if e.Field != "" && e.Field != a.Field {
		return false
	}
	if e.Detail != "" {
		if loose(e.Asserted) {
			if !strings.Contains(a.Detail, e.Detail) {
				return false
			}
		} else if e.Detail != a.Detail {
			return false
		}
	}
	if e.DetailContains != "" && !strings.Contains(a.Detail, e.DetailContains) {
		return false
	}
	if e.DetailPrefix != "" && !strings.HasPrefix(a.Detail, e.DetailPrefix) {
		return false
	}
	if e.Message != "" {
		if loose(e.MessageAsserted) {
			if !strings.Contains(a.Message, e.Message) {
				return false
			}
		} else if e.Message != a.Message {
			return false
		}
	}
	return true
}

// compareCommon compares result, errors (as a multiset; every expected error must match a
// distinct actual error and there must be no other error) and warnings.
func compareCommon(exp *expectation, result string, actual []errorJSON, warnings []string) []string {
	var mm []string
	if exp.Result != "" && exp.Result != result {
		mm = append(mm, fmt.Sprintf("result: expected %s, oracle %s", exp.Result, result))
	}
	if exp.Errors != nil {
		used := make([]bool, len(actual))
		for _, e := range exp.Errors {
			found := false
			for i, a := range actual {
				if !used[i] && errorMatches(e, a) {
					used[i], found = true, true
					break
				}
			}
			if !found {
				b, _ := json.Marshal(e)
				mm = append(mm, "expected error not produced: "+string(b))
			}
		}
		for i, a := range actual {
			if !used[i] {
				mm = append(mm, "unexpected error: "+a.Message)
			}
		}
	}
	if exp.Warnings != nil {
		used := make([]bool, len(warnings))
		for _, w := range exp.Warnings {
			found := false
			for i, a := range warnings {
				if !used[i] && a == w {
					used[i], found = true, true
					break
				}
			}
			if !found {
				mm = append(mm, fmt.Sprintf("expected warning not produced: %q", w))
			}
		}
		for i, a := range warnings {
			if !used[i] {
				mm = append(mm, fmt.Sprintf("unexpected warning: %q", a))
			}
		}
	}
	return mm
}

func cmdEval(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: oracle eval VECTOR.json...")
		return 2
	}
	rc := 0
	for _, p := range args {
		out, err := evalVectorFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			return 2
		}
		fmt.Println(string(mustJSON(out)))
		if out.Summary.Disagree > 0 && rc == 0 {
			rc = 1
		}
	}
	return rc
}
