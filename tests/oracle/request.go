package main

// The request path of a custom resource CREATE / UPDATE before and around rest.BeforeCreate /
// rest.BeforeUpdate: what the apiserver's create/update handlers (k8s.io/apiserver
// pkg/endpoints/handlers create.go, update.go) and the generic registry Store
// (pkg/registry/generic/registry store.go: create, Update) do with the object, each step calling
// the apiserver's own function. The request is the one a client (kubectl, client-go,
// controller-runtime) sends for the object: a namespaced object is posted to its
// metadata.namespace (the request namespace when it has none), an update is a PUT to the URL of
// the object's own name and namespace.

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/storage/names"
)

// GeneratedNameSuffix replaces the five random characters names.SimpleNameGenerator appends to
// generateName, so that outputs are reproducible. The random alphabet
// (utilrand: "bcdfghjklmnpqrstvwxz2456789") has no '0', so a name ending in it was never made by
// the real generator; it is still a valid DNS label suffix, so generated names validate as real
// ones do (the length is the real one too: generateName is cut to 58 characters first).
const GeneratedNameSuffix = "00000"

// storedUID is the uid given to an old object that has none (and whose update does not name one).
const storedUID = types.UID("00000000-0000-0000-0000-000000000001")

// fixedNames wraps the CR strategy and makes names from generateName with the real
// names.SimpleNameGenerator, replacing its random suffix with GeneratedNameSuffix.
type fixedNames struct {
	rest.RESTCreateUpdateStrategy
}

func (fixedNames) GenerateName(base string) string {
	n := names.SimpleNameGenerator.GenerateName(base)
	return n[:len(n)-len(GeneratedNameSuffix)] + GeneratedNameSuffix
}

// requestNamespace is the namespace of the request URL a client uses for an object with
// metadata.namespace ns: its own, else the default one (--namespace); none for cluster-scoped kinds.
func (srv *crServer) requestNamespace(ns, dflt string) string {
	if !srv.namespaced {
		return ""
	}
	if ns == "" {
		return dflt
	}
	return ns
}

func (srv *crServer) resource() schema.GroupResource {
	return schema.GroupResource{Group: srv.crd.Spec.Group, Resource: srv.crd.Spec.Names.Plural}
}

// storageKey is the etcd key of an object as the apiserver's etcd3 store prints it in storage
// errors: the default --etcd-prefix /registry, then the CR registry's ResourcePrefix
// (group/plural), then namespace/name (generic NamespaceKeyFunc) or name.
func (srv *crServer) storageKey(ns, name string) string {
	if srv.namespaced {
		return fmt.Sprintf("/registry/%s/%s/%s/%s", srv.crd.Spec.Group, srv.crd.Spec.Names.Plural, ns, name)
	}
	return fmt.Sprintf("/registry/%s/%s/%s", srv.crd.Spec.Group, srv.crd.Spec.Names.Plural, name)
}

// prepareCreate runs what happens to a CREATE body before rest.BeforeCreate: the create handler
// wipes the system fields the client may not set (rest.WipeObjectMetaSystemFields) and checks or
// sets the namespace (rest.EnsureObjectNamespaceMatchesRequestNamespace: cleared for
// cluster-scoped kinds, the request namespace when missing); Store.create fills uid and
// creationTimestamp (rest.FillObjectMetaSystemFields) and makes the name from generateName
// (strategy.GenerateName) when name is empty. BeforeCreate checks the namespace again.
func (srv *crServer) prepareCreate(u *unstructured.Unstructured, reqNS string) error {
	rest.WipeObjectMetaSystemFields(u)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(reqNS, srv.namespaced), u); err != nil {
		return err
	}
	rest.FillObjectMetaSystemFields(u)
	if u.GetGenerateName() != "" && u.GetName() == "" {
		u.SetName(srv.strategy.GenerateName(u.GetGenerateName()))
	}
	return nil
}

// storeCreate is what the storage says to a valid CREATE before it is written: the etcd3 store
// refuses an object with a resourceVersion (storage.ErrResourceVersionSetOnCreate, passed through
// by storeerr.InterpretCreateError; the handler answers it as an unknown 500 with its text).
func (srv *crServer) storeCreate(u *unstructured.Unstructured) error {
	if v, err := (storage.APIObjectVersioner{}).ObjectResourceVersion(u); err == nil && v != 0 {
		return storeerr.InterpretCreateError(storage.ErrResourceVersionSetOnCreate, srv.resource(), u.GetName())
	}
	return nil
}

// asStored completes an old object to what the apiserver has stored for it: it was created
// through the create path, so a cluster-scoped object has no namespace and a namespaced one has
// the request's when it had none, and a name from generateName. What the record leaves out is
// taken from the update (the client read the object it updates: its name, uid and
// resourceVersion), else given a fixed value; a stored object has a generation (1).
func (srv *crServer) asStored(old, u *unstructured.Unstructured, reqNS string) {
	if !srv.namespaced {
		old.SetNamespace("")
	} else if old.GetNamespace() == "" {
		old.SetNamespace(reqNS)
	}
	if old.GetName() == "" && old.GetGenerateName() != "" {
		old.SetName(srv.strategy.GenerateName(old.GetGenerateName()))
	}
	if old.GetName() == "" {
		old.SetName(u.GetName())
	}
	if old.GetUID() == "" {
		if u.GetUID() != "" {
			old.SetUID(u.GetUID())
		} else {
			old.SetUID(storedUID)
		}
	}
	if created := old.GetCreationTimestamp(); created.IsZero() {
		uid := old.GetUID()
		rest.FillObjectMetaSystemFields(old)
		old.SetUID(uid)
	}
	if old.GetGeneration() == 0 {
		old.SetGeneration(1)
	}
	if old.GetResourceVersion() == "" {
		if rv := u.GetResourceVersion(); rv != "" {
			old.SetResourceVersion(rv)
		} else {
			old.SetResourceVersion("1")
		}
	}
}

// prepareUpdate runs what happens to an UPDATE body before rest.BeforeUpdate, for a PUT to the
// URL of the body's name (the stored object's when the body has none) and namespace: the update
// handler checks or sets the namespace (rest.EnsureObjectNamespaceMatchesRequestNamespace) and
// that the body's name is the URL's (handlers' checkName, whose BadRequest text is reproduced);
// Store.Update finds no stored object under another name or namespace (NotFound), checks the
// storage preconditions (a uid in the body must be the stored one: storage.Preconditions.Check,
// a Conflict through storeerr.InterpretUpdateError) and the resourceVersion (a client echoes the
// one it read; a different one is the optimistic-lock Conflict). A PUT (put) without one is
// refused as Store.Update refuses it for a strategy that allows no unconditional update (the
// custom resource strategy's); a patch applies to the stored object, so its body has the
// stored resourceVersion.
func (srv *crServer) prepareUpdate(u, old *unstructured.Unstructured, reqNS string, put bool) error {
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(reqNS, srv.namespaced), u); err != nil {
		return err
	}
	name := u.GetName()
	if name == "" {
		// The request goes to the stored object's URL; the handler's checkName asks the namer
		// for the body's name first, which refuses an empty one.
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", old.GetName()))
	}
	if name != old.GetName() || reqNS != old.GetNamespace() {
		return apierrors.NewNotFound(srv.resource(), name)
	}
	if uid := u.GetUID(); uid != "" {
		p := storage.Preconditions{UID: &uid}
		if err := p.Check(srv.storageKey(reqNS, name), old); err != nil {
			return storeerr.InterpretUpdateError(err, srv.resource(), name)
		}
	}
	if u.GetResourceVersion() == "" {
		if put { // customresource.strategy.AllowUnconditionalUpdate is false
			r := srv.resource()
			return apierrors.NewInvalid(schema.GroupKind{Group: r.Group, Kind: r.Resource}, name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "resourceVersion"), uint64(0), "must be specified for an update"),
			})
		}
		u.SetResourceVersion(old.GetResourceVersion())
	}
	if u.GetResourceVersion() != old.GetResourceVersion() {
		return apierrors.NewConflict(srv.resource(), name, fmt.Errorf(genericregistry.OptimisticLockErrorMsg))
	}
	return nil
}

// genericMetaErrors recomputes the ObjectMeta errors rest.BeforeCreate (ValidateCreate) and
// rest.BeforeUpdate (validateCommonFields) add themselves, with the same functions on the same
// objects, so that errorsFromStatus can give their causes back their values.
func genericMetaErrors(obj, old runtime.Object, namespaced bool) field.ErrorList {
	objMeta, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	errs := genericvalidation.ValidateObjectMetaAccessor(objMeta, namespaced, validatePathSegment, field.NewPath("metadata"))
	if old != nil {
		if oldMeta, err := meta.Accessor(old); err == nil {
			errs = append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(objMeta, oldMeta, field.NewPath("metadata"))...)
		}
	}
	return errs
}
