package main

// oracle validate: custom resource CREATE/UPDATE as the apiserver's CR handler and registry do it.

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
)

type validateResult struct {
	Valid     bool        `json:"valid"`
	Operation string      `json:"operation"`
	Errors    []errorJSON `json:"errors"`
	Text      string      `json:"text"`
	Warnings  []string    `json:"warnings"`
}

// crServer is what the CR handler builds for one served version of a CRD
// (customresource_handler.go getOrCreateServingInfoFor).
type crServer struct {
	crd        *apiextensionsv1.CustomResourceDefinition
	kind       schema.GroupVersionKind
	namespaced bool
	structural *structuralschema.Structural
	strategy   rest.RESTCreateUpdateStrategy
	status     rest.RESTUpdateStrategy // nil without a status subresource
}

func newCRServer(crd *apiextensionsv1.CustomResourceDefinition, version string) (*crServer, error) {
	var found *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			found = &crd.Spec.Versions[i]
		}
	}
	if found == nil {
		return nil, fmt.Errorf("CRD %s has no version %q", crd.Name, version)
	}
	if !found.Served {
		return nil, fmt.Errorf("version %q of CRD %s is not served", version, crd.Name)
	}
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	internalValidation := &apiextensionsinternal.CustomResourceValidation{}
	if val != nil {
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internalValidation, nil); err != nil {
			return nil, err
		}
	}
	var s *structuralschema.Structural
	if internalValidation.OpenAPIV3Schema != nil {
		s, err = structuralschema.NewStructural(internalValidation.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("schema is not structural: %w", err)
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			return nil, err
		}
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internalValidation.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	var statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if subresources != nil && subresources.Status != nil {
		statusSpec = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceStatus_To_apiextensions_CustomResourceSubresourceStatus(subresources.Status, statusSpec, nil); err != nil {
			return nil, err
		}
		if o := internalValidation.OpenAPIV3Schema; o != nil && o.Properties != nil {
			if statusSchema, ok := o.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
					return nil, err
				}
			}
		}
	}
	var scaleSpec *apiextensionsinternal.CustomResourceSubresourceScale
	if subresources != nil && subresources.Scale != nil {
		scaleSpec = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
			return nil, err
		}
	}
	kindName := crd.Status.AcceptedNames.Kind
	if kindName == "" {
		kindName = crd.Spec.Names.Kind
	}
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: kindName}
	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	strategy := customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(), namespaced, kind, validator, statusValidator, s, statusSpec, scaleSpec, found.SelectableFields)
	srv := &crServer{crd: crd, kind: kind, namespaced: namespaced, structural: s, strategy: fixedNames{strategy}}
	if statusSpec != nil {
		srv.status = customresource.NewStatusStrategy(strategy)
	}
	return srv, nil
}

// decode turns a request body into the object the registry sees: the steps of the CR handler's
// schemaCoercingDecoder (ObjectMeta extraction, pruning, null pruning, embedded ObjectMeta
// coercion) followed by the structural defaulting of the unstructuredDefaulter.
// It returns the unknown field paths that pruning dropped.
func (srv *crServer) decode(j []byte) (*unstructured.Unstructured, []string, error) {
	v, err := decodeValue(j)
	if err != nil {
		return nil, nil, err
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return nil, nil, fmt.Errorf("object is not a JSON object")
	}
	u := &unstructured.Unstructured{Object: m}
	kind, foundKind, err := unstructured.NestedString(m, "kind")
	if err != nil {
		return nil, nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(m, "apiVersion")
	if err != nil {
		return nil, nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(m, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil, err
	}
	if gv.Group == srv.kind.Group && kind == srv.kind.Kind && srv.structural != nil {
		if !srv.crd.Spec.PreserveUnknownFields {
			unknown = append(unknown, structuralpruning.PruneWithOptions(m, srv.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(m, srv.structural)
		}
		ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, m, srv.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if ferr != nil {
			return nil, nil, ferr
		}
		unknown = append(unknown, paths...)
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(m, objectMeta); err != nil {
			return nil, nil, err
		}
	}
	if srv.structural != nil {
		structuraldefaulting.Default(m, srv.structural)
	}
	return u, unknown, nil
}

// decodeError is the create and update handlers' transformDecodeError of a body the CR decoder
// refused: "<kind> in version "<v>" cannot be handled as a <Kind>: <err>" when the body names
// its kind, else "the object provided is unrecognized (must be of type <Kind>): <err> (<body>)".
func (srv *crServer) decodeError(body []byte, err error) error {
	var tm struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	_ = json.Unmarshal(body, &tm)
	if tm.Kind != "" {
		gv, _ := schema.ParseGroupVersion(tm.APIVersion)
		return fmt.Errorf("%s in version %q cannot be handled as a %s: %v", tm.Kind, gv.Version, srv.kind.Kind, err)
	}
	return fmt.Errorf("the object provided is unrecognized (must be of type %s): %v (%s)", srv.kind.Kind, err, summarizeData(body, 30))
}

// summarizeData is the handlers' summary of a body they cannot decode (handlers/rest.go).
func summarizeData(data []byte, maxLength int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > maxLength {
			return string(data[:maxLength]) + " ..."
		}
		return string(data)
	default:
		if len(data) > maxLength {
			return hex.EncodeToString(data[:maxLength]) + " ..."
		}
		return hex.EncodeToString(data)
	}
}

type validateOptions struct {
	Old             []byte    // nil for CREATE
	OldServer       *crServer // the CRD the old object was created under, when it changed since
	Subresource     string    // "" or "status"
	Namespace       string    // used when a namespaced object has none
	FieldValidation string    // Strict, Warn (the server default), Ignore
	Put             bool      // an update sent as a PUT (else a patch: the body has the stored resourceVersion)
}

func (srv *crServer) validate(obj []byte, o validateOptions) validateResult {
	res := validateResult{Operation: "CREATE", Errors: []errorJSON{}, Warnings: []string{}}
	if o.Old != nil {
		res.Operation = "UPDATE"
	}
	var rec *warningRecorder
	fail := func(err error) validateResult {
		res.Text = normalize(err.Error())
		if rec != nil {
			res.Warnings = rec.list()
		}
		return res
	}
	u, unknown, err := srv.decode(obj)
	if err != nil {
		return fail(srv.decodeError(obj, err))
	}
	rec = &warningRecorder{}
	switch strings.ToLower(o.FieldValidation) {
	case "strict":
		if len(unknown) > 0 {
			var parts []string
			for _, p := range unknown {
				parts = append(parts, fmt.Sprintf("unknown field %q", p))
			}
			return fail(srv.decodeError(obj, fmt.Errorf("strict decoding error: %s", strings.Join(parts, ", "))))
		}
	case "ignore":
	default:
		for _, p := range unknown {
			rec.AddWarning("", fmt.Sprintf("unknown field %q", p))
		}
	}
	reqNS := srv.requestNamespace(u.GetNamespace(), o.Namespace)
	ctx := warning.WithWarningRecorder(genericapirequest.WithNamespace(context.Background(), reqNS), rec)

	var verr error
	var pool field.ErrorList
	var old *unstructured.Unstructured
	if o.Old == nil {
		if o.Subresource != "" {
			return fail(fmt.Errorf("a %s subresource can't be created", o.Subresource))
		}
		if err := srv.prepareCreate(u, reqNS); err != nil {
			return fail(err)
		}
		s := &recordingStrategy{RESTCreateUpdateStrategy: srv.strategy}
		verr = rest.BeforeCreate(s, ctx, u)
		pool = s.errs
		if verr == nil {
			verr = srv.storeCreate(u)
		}
	} else {
		stored := o.Old
		if o.OldServer != nil {
			// Stored as the old CRD decoded it (its pruning and defaults), then read back through
			// the new CRD's storage decoder (pruning and defaults again).
			under, _, err := o.OldServer.decode(o.Old)
			if err != nil {
				return fail(fmt.Errorf("old object under the old CRD: %w", err))
			}
			if stored, err = json.Marshal(under.Object); err != nil {
				return fail(err)
			}
		}
		if old, _, err = srv.decode(stored); err != nil {
			return fail(fmt.Errorf("old object: %w", err))
		}
		srv.asStored(old, u, reqNS)
		var strategy rest.RESTCreateUpdateStrategy = srv.strategy
		if o.Subresource == "status" {
			if srv.status == nil {
				return fail(fmt.Errorf("the CRD has no status subresource for version %s", srv.kind.Version))
			}
			strategy = statusAsCreateUpdate{srv.status, srv.strategy}
		} else if o.Subresource != "" {
			return fail(fmt.Errorf("unsupported subresource %q", o.Subresource))
		}
		if err := srv.prepareUpdate(u, old, reqNS, o.Put); err != nil {
			return fail(err)
		}
		s := &recordingStrategy{RESTCreateUpdateStrategy: strategy}
		verr = rest.BeforeUpdate(s, ctx, u, old)
		pool = s.errs
	}
	if verr != nil {
		var oldObj runtime.Object
		if old != nil {
			oldObj = old
		}
		pool = append(pool, genericMetaErrors(u, oldObj, srv.namespaced)...)
	}
	res.Warnings = rec.list()
	if verr == nil {
		res.Valid = true
		return res
	}
	errs, ok := errorsFromStatus(verr, pool)
	if !ok {
		return fail(verr)
	}
	errs = sortErrors(errs)
	for _, e := range errs {
		res.Errors = append(res.Errors, renderError(e))
	}
	res.Text = invalidText(srv.kind.GroupKind(), u.GetName(), errs)
	return res
}

// statusAsCreateUpdate lets the status strategy (an update-only strategy) be wrapped by
// recordingStrategy; only its update methods are used.
type statusAsCreateUpdate struct {
	rest.RESTUpdateStrategy
	main rest.RESTCreateUpdateStrategy
}

func (s statusAsCreateUpdate) GenerateName(base string) string { return s.main.GenerateName(base) }
func (s statusAsCreateUpdate) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.main.PrepareForCreate(ctx, obj)
}
func (s statusAsCreateUpdate) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return s.main.Validate(ctx, obj)
}
func (s statusAsCreateUpdate) WarningsOnCreate(ctx context.Context, obj runtime.Object) []string {
	return s.main.WarningsOnCreate(ctx, obj)
}

// findCRD returns the CRD document of the given files that serves kind (any CRD if kind is "").
func loadCRD(path, kind string) (*apiextensionsv1.CustomResourceDefinition, error) {
	docs, err := readDocuments(path)
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, d := range docs {
		if !isCRD(d.JSON) {
			continue
		}
		crd, err := decodeCRDV1(d.JSON)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if kind == "" || crd.Spec.Names.Kind == kind {
			crds = append(crds, crd)
		}
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("%s: no CustomResourceDefinition for kind %q", path, kind)
	}
	if len(crds) > 1 {
		return nil, fmt.Errorf("%s: %d CustomResourceDefinitions for kind %q", path, len(crds), kind)
	}
	return crds[0], nil
}

// versionFor picks --version, else the version in the object's apiVersion.
func versionFor(obj []byte, flagVersion string) string {
	if flagVersion != "" {
		return flagVersion
	}
	av, _ := kindOf(obj)
	if i := strings.LastIndex(av, "/"); i >= 0 {
		return av[i+1:]
	}
	return av
}

func readSingleDocument(path string) ([]byte, error) {
	docs, err := readDocuments(path)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: expected exactly one document, found %d", path, len(docs))
	}
	return docs[0].JSON, nil
}

func cmdValidate(args []string) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	crdPath := fs.String("crd", "", "CRD manifest (file; multi-document streams are searched for the object's kind)")
	version := fs.String("version", "", "CRD version to validate against (default: from the object's apiVersion)")
	oldPath := fs.String("old", "", "old object: validate as an UPDATE")
	oldCRDPath := fs.String("old-crd", "", "the CRD the old object was created under (a CRD change since)")
	subresource := fs.String("subresource", "", "\"status\" for an update of the status subresource")
	namespace := fs.String("namespace", "default", "namespace of the request for namespaced objects without one")
	fieldValidation := fs.String("field-validation", "Warn", "Strict, Warn or Ignore (unknown fields)")
	updateMethod := fs.String("update-method", "patch", "how an update is sent: patch (the body has the stored resourceVersion) or put")
	if err := fs.Parse(reorderFlags(args)); err != nil {
		return 2
	}
	if *updateMethod != "patch" && *updateMethod != "put" {
		fmt.Fprintln(os.Stderr, "oracle: --update-method: patch or put")
		return 2
	}
	if *crdPath == "" || fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: oracle validate --crd FILE [--version v1] [--old FILE [--old-crd FILE]] [--subresource status] OBJECT")
		return 2
	}
	obj, err := readSingleDocument(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	_, kind := kindOf(obj)
	crd, err := loadCRD(*crdPath, kind)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	srv, err := newCRServer(crd, versionFor(obj, *version))
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		return 2
	}
	o := validateOptions{Subresource: *subresource, Namespace: *namespace, FieldValidation: *fieldValidation, Put: *updateMethod == "put"}
	if *oldPath != "" {
		if o.Old, err = readSingleDocument(*oldPath); err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			return 2
		}
	}
	if *oldCRDPath != "" {
		_, oldKind := kindOf(o.Old)
		oldCRD, err := loadCRD(*oldCRDPath, oldKind)
		if err == nil {
			o.OldServer, err = newCRServer(oldCRD, versionFor(o.Old, *version))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle: --old-crd:", err)
			return 2
		}
	}
	res := srv.validate(obj, o)
	fmt.Println(string(mustJSON(res)))
	if !res.Valid {
		return 1
	}
	return 0
}

// reorderFlags moves flags before positional arguments (Go's flag package stops at the first
// positional argument).
func reorderFlags(args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

func jsonCompact(v interface{}) ([]byte, error) { return json.Marshal(v) }
