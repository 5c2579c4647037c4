package main

// Loading manifests and converting them to the types the apiserver works with.
// Every conversion here goes through the apiextensions scheme (decoding, defaulting and
// v1 -> internal conversion), exactly as the apiserver decodes a request body.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var (
	scheme = runtime.NewScheme()
	codecs serializer.CodecFactory
)

func init() {
	install.Install(scheme)
	codecs = serializer.NewCodecFactory(scheme)
}

// document is one YAML/JSON document of a stream, converted to JSON.
type document struct {
	File  string
	Index int
	JSON  []byte
}

// readDocuments splits a YAML stream (JSON is YAML) with the apimachinery YAML reader
// and drops empty documents.
func readDocuments(path string) ([]document, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	return splitDocuments(path, data)
}

func splitDocuments(name string, data []byte) ([]document, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []document
	for i := 0; ; i++ {
		chunk, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		j, err := yaml.YAMLToJSON(chunk)
		if err != nil {
			return nil, fmt.Errorf("%s (document %d): %w", name, i, err)
		}
		j = bytes.TrimSpace(j)
		if len(j) == 0 || string(j) == "null" {
			continue
		}
		docs = append(docs, document{File: name, Index: i, JSON: j})
	}
	return docs, nil
}

// kindOf returns apiVersion and kind of a JSON document.
func kindOf(j []byte) (string, string) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	_ = json.Unmarshal(j, &tm)
	return tm.APIVersion, tm.Kind
}

func isCRD(j []byte) bool {
	av, k := kindOf(j)
	return k == "CustomResourceDefinition" && (av == "apiextensions.k8s.io/v1" || av == "apiextensions.k8s.io/v1beta1")
}

// decodeCRDInternal decodes a CRD manifest (v1 or v1beta1), applies the scheme defaults and
// converts it to the internal version, as the apiserver does for a CREATE request body.
func decodeCRDInternal(j []byte) (*apiextensionsinternal.CustomResourceDefinition, error) {
	obj, _, err := codecs.UniversalDecoder(apiextensionsinternal.SchemeGroupVersion).Decode(j, nil, nil)
	if err != nil {
		return nil, err
	}
	crd, ok := obj.(*apiextensionsinternal.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("not a CustomResourceDefinition: %T", obj)
	}
	return crd, nil
}

// decodeCRDV1 decodes a CRD manifest into the defaulted v1 type (what the CR handler serves from).
func decodeCRDV1(j []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	obj, _, err := codecs.UniversalDecoder(apiextensionsv1.SchemeGroupVersion).Decode(j, nil, nil)
	if err != nil {
		return nil, err
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("not a CustomResourceDefinition: %T", obj)
	}
	return crd, nil
}

// internalSchemaFromJSON converts a schema written in CRD (v1 openAPIV3Schema) form to the
// internal JSONSchemaProps with the generated v1 -> internal conversion.
func internalSchemaFromJSON(j []byte) (*apiextensionsinternal.JSONSchemaProps, error) {
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(j, &v1); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	var internal apiextensionsinternal.JSONSchemaProps
	if err := scheme.Convert(&v1, &internal, nil); err != nil {
		return nil, fmt.Errorf("schema conversion: %w", err)
	}
	return &internal, nil
}

func structuralFromJSON(j []byte) (*structuralschema.Structural, error) {
	internal, err := internalSchemaFromJSON(j)
	if err != nil {
		return nil, err
	}
	return structuralschema.NewStructural(internal)
}

// decodeValue decodes JSON the way the apiserver's unstructured decoder does: integers become
// int64 and other numbers float64.
func decodeValue(j []byte) (interface{}, error) {
	if len(bytes.TrimSpace(j)) == 0 {
		return nil, nil
	}
	var v interface{}
	if err := utiljson.Unmarshal(j, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// ---- error rendering -------------------------------------------------------------------

// errorJSON is the oracle's rendering of one apimachinery field.Error.
type errorJSON struct {
	Field   string          `json:"field"`
	Type    string          `json:"type"`
	Value   json.RawMessage `json:"value,omitempty"`
	Detail  string          `json:"detail"`
	Message string          `json:"message"`
}

// reasonOf maps a field.ErrorType to the CauseType string ("FieldValueInvalid", ...) that the
// apiserver puts in Status causes.
func reasonOf(t field.ErrorType) string { return string(t) }

var selfTypeName = regexp.MustCompile(`selfType[0-9]+`)

// normalize replaces the per-compilation random CEL type name (selfType<nanoseconds>) with a
// fixed placeholder so outputs are reproducible. This is the only rewrite the oracle applies.
func normalize(s string) string { return selfTypeName.ReplaceAllString(s, "selfType<N>") }

func renderError(e *field.Error) errorJSON {
	out := errorJSON{
		Field:   normalize(e.Field),
		Type:    reasonOf(e.Type),
		Detail:  normalize(e.Detail),
		Message: normalize(e.Error()),
	}
	// The value is omitted when the apiserver omits it (field.OmitValueType, used for failed
	// rules on objects and arrays); otherwise it is the JSON encoding of BadValue.
	if _, omitted := e.BadValue.(field.OmitValueType); !omitted {
		if b, err := json.Marshal(e.BadValue); err == nil {
			out.Value = json.RawMessage(normalize(string(b)))
		} else {
			b, _ := json.Marshal(fmt.Sprintf("%v", e.BadValue))
			out.Value = b
		}
	}
	return out
}

// sortErrors orders errors by field path (stable), because the apiserver visits sibling
// properties in Go map order. Errors at the same field keep the apiserver's order, except at
// "<nil>", where errors of different nodes land (composition, rules) in map order too: those
// are ordered by their text.
func sortErrors(errs field.ErrorList) field.ErrorList {
	out := append(field.ErrorList(nil), errs...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Field != out[j].Field {
			return out[i].Field < out[j].Field
		}
		return out[i].Field == "<nil>" && out[i].Error() < out[j].Error()
	})
	return out
}

// invalidText is the message of the Status the apiserver returns for these errors
// (errors.NewInvalid), computed from the sorted list.
func invalidText(gk schema.GroupKind, name string, errs field.ErrorList) string {
	return normalize(apierrors.NewInvalid(gk, name, errs).Error())
}

func mustJSON(v interface{}) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return b
}
