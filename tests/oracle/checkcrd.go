package main

// oracle check-crd: what `kubectl create -f CRD` would say.

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
)

type ruleJSON struct {
	Path           string `json:"path"`
	Rule           string `json:"rule"`
	EstimatedCost  uint64 `json:"estimatedCost"`
	MaxCost        uint64 `json:"maxCost"`
	MaxCardinality uint64 `json:"maxCardinality"`
	// Present only when the rule has a messageExpression that compiled.
	MessageExpressionMaxCost *uint64 `json:"messageExpressionMaxCost,omitempty"`
	// Present only when the rule (or its messageExpression) failed to compile.
	CompileError string `json:"compileError,omitempty"`
}

type checkResult struct {
	File     string     `json:"file"`
	Doc      int        `json:"doc"`
	CRD      string     `json:"crd"`
	Accepted bool       `json:"accepted"`
	Errors   []string   `json:"errors"`
	Text     string     `json:"text"`
	Warnings []string   `json:"warnings"`
	Rules    []ruleJSON `json:"rules"`

	structured field.ErrorList // the sorted field errors behind Errors (not printed)
}

type warningRecorder struct{ warnings []string }

func (w *warningRecorder) AddWarning(_, text string) {
	w.warnings = append(w.warnings, normalize(text))
}

// list returns the warnings sorted (the apiserver's order across sibling fields follows Go map
// iteration and is not stable).
func (w *warningRecorder) list() []string {
	out := append([]string{}, w.warnings...)
	sort.Strings(out)
	return out
}

// recordingStrategy wraps a real registry strategy and remembers the field.ErrorList its
// Validate/ValidateUpdate returned, so the oracle can print values and details, which the
// Status causes do not carry separately.
type recordingStrategy struct {
	rest.RESTCreateUpdateStrategy
	errs field.ErrorList
}

func (r *recordingStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	errs := r.RESTCreateUpdateStrategy.Validate(ctx, obj)
	r.errs = append(r.errs, errs...)
	return errs
}

func (r *recordingStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	errs := r.RESTCreateUpdateStrategy.ValidateUpdate(ctx, obj, old)
	r.errs = append(r.errs, errs...)
	return errs
}

// errorsFromStatus returns the field errors behind an Invalid StatusError, in the order of its
// causes. A Status cause keeps only the error's field, type and ErrorBody text, so each cause is
// matched with an error of pool (the recorded strategy errors and the generic ObjectMeta errors
// rest.BeforeCreate / BeforeUpdate computed themselves, recomputed by the caller with the same
// functions) to recover its value and detail. A cause no error of pool matches is kept with
// its whole text as detail (this does not happen for the paths the oracle runs).
func errorsFromStatus(err error, pool field.ErrorList) (field.ErrorList, bool) {
	se, ok := err.(*apierrors.StatusError)
	if !ok || se.ErrStatus.Details == nil || se.ErrStatus.Reason != "Invalid" {
		return nil, false
	}
	var out field.ErrorList
	used := make([]bool, len(pool))
	for _, c := range se.ErrStatus.Details.Causes {
		found := false
		for i, e := range pool {
			if !used[i] && e.Field == c.Field && string(e.Type) == string(c.Type) && e.ErrorBody() == c.Message {
				used[i], found = true, true
				out = append(out, e)
				break
			}
		}
		if !found {
			out = append(out, &field.Error{Type: field.ErrorType(c.Type), Field: c.Field, BadValue: field.OmitValueType{}, Detail: c.Message})
		}
	}
	return out, true
}

func checkCRDDocument(d document) checkResult {
	res := checkResult{File: d.File, Doc: d.Index, Errors: []string{}, Warnings: []string{}, Rules: []ruleJSON{}}
	crd, err := decodeCRDInternal(d.JSON)
	if err != nil {
		res.Text = err.Error()
		res.Errors = []string{err.Error()}
		return res
	}
	res.CRD = crd.Name

	// The CREATE path of the CRD registry: system fields, PrepareForCreate, Validate, ObjectMeta
	// checks (rest.BeforeCreate with the real CRD strategy).
	rest.FillObjectMetaSystemFields(crd)
	rec := &warningRecorder{}
	ctx := warning.WithWarningRecorder(genericapirequest.WithNamespace(context.Background(), ""), rec)
	strategy := &recordingStrategy{RESTCreateUpdateStrategy: customresourcedefinition.NewStrategy(scheme)}
	err = rest.BeforeCreate(strategy, ctx, crd)
	res.Warnings = rec.list()
	if err == nil {
		res.Accepted = true
	} else if errs, ok := errorsFromStatus(err, strategy.errs); ok {
		errs = sortErrors(errs)
		res.structured = errs
		for _, e := range errs {
			res.Errors = append(res.Errors, normalize(e.Error()))
		}
		res.Text = invalidText(apiextensionsinternal.Kind("CustomResourceDefinition"), crd.Name, errs)
	} else {
		res.Errors = []string{normalize(err.Error())}
		res.Text = normalize(err.Error())
	}
	res.Rules = crdRuleCosts(crd)
	return res
}

// crdRuleCosts compiles every rule of every schema of the (internal) CRD the way CRD validation
// does, walking the schema with the apiserver's own CELSchemaContext (type information and
// cardinality), and reports the apiserver's cost figures for each rule.
func crdRuleCosts(crd *apiextensionsinternal.CustomResourceDefinition) []ruleJSON {
	envSet := baseEnvSet(environment.DefaultCompatibilityVersion())
	out := []ruleJSON{}
	if crd.Spec.Validation != nil && crd.Spec.Validation.OpenAPIV3Schema != nil {
		s := crd.Spec.Validation.OpenAPIV3Schema
		walkRules(s, field.NewPath("spec", "validation", "openAPIV3Schema"), crdvalidation.RootCELContext(s), envSet, &out)
	}
	for i, v := range crd.Spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			s := v.Schema.OpenAPIV3Schema
			walkRules(s, field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema"), crdvalidation.RootCELContext(s), envSet, &out)
		}
	}
	return out
}

func saturatingMul(a, b uint64) uint64 {
	if a == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

func walkRules(s *apiextensionsinternal.JSONSchemaProps, p *field.Path, ctx *crdvalidation.CELSchemaContext, envSet *environment.EnvSet, out *[]ruleJSON) {
	if s == nil {
		return
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		walkRules(s.AdditionalProperties.Schema, p.Child("additionalProperties"), ctx.ChildAdditionalPropertiesContext(s.AdditionalProperties.Schema), envSet, out)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		prop := s.Properties[n]
		walkRules(&prop, p.Child("properties").Key(n), ctx.ChildPropertyContext(&prop, n), envSet, out)
	}
	if s.Items != nil && s.Items.Schema != nil {
		walkRules(s.Items.Schema, p.Child("items"), ctx.ChildItemsContext(s.Items.Schema), envSet, out)
	}
	if len(s.XValidations) == 0 {
		return
	}
	rulePath := func(i int) string { return p.Child("x-kubernetes-validations").Index(i).Child("rule").String() }
	fail := func(msg string) {
		for i, r := range s.XValidations {
			*out = append(*out, ruleJSON{Path: rulePath(i), Rule: r.Rule, CompileError: msg})
		}
	}
	typeInfo, err := ctx.TypeInfo()
	if err != nil {
		fail("failed to construct type information: " + err.Error())
		return
	}
	if typeInfo == nil {
		fail("no type information")
		return
	}
	results, err := cel.Compile(typeInfo.Schema, typeInfo.DeclType, celconfig.PerCallLimit, envSet, cel.NewExpressionsEnvLoader())
	if err != nil {
		fail(err.Error())
		return
	}
	for i, cr := range results {
		card := cr.MaxCardinality
		if ctx.MaxCardinality != nil {
			card = *ctx.MaxCardinality
		}
		r := ruleJSON{
			Path:           rulePath(i),
			Rule:           s.XValidations[i].Rule,
			MaxCost:        cr.MaxCost,
			MaxCardinality: card,
			EstimatedCost:  saturatingMul(cr.MaxCost, card),
		}
		var msgs []string
		if cr.Error != nil {
			msgs = append(msgs, cr.Error.Detail)
		}
		if cr.MessageExpressionError != nil {
			msgs = append(msgs, cr.MessageExpressionError.Detail)
		} else if cr.MessageExpression != nil {
			c := cr.MessageExpressionMaxCost
			r.MessageExpressionMaxCost = &c
		}
		r.CompileError = normalize(strings.Join(msgs, "\n"))
		*out = append(*out, r)
	}
}

func cmdCheckCRD(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: oracle check-crd FILE...")
		return 2
	}
	rc := 0
	n := 0
	for _, f := range args {
		docs, err := readDocuments(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			return 2
		}
		for _, d := range docs {
			if !isCRD(d.JSON) {
				continue
			}
			n++
			res := checkCRDDocument(d)
			if !res.Accepted {
				rc = 1
			}
			b, _ := jsonCompact(res)
			fmt.Println(string(b))
		}
	}
	if n == 0 {
		fmt.Fprintln(os.Stderr, "oracle: no CustomResourceDefinition documents found")
		return 2
	}
	return rc
}
