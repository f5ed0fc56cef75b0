package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Gateway API's ReferenceGrant is how a namespace consents to being referenced from another:
// an object of one namespace (a CR) may use an object of another namespace only while a
// ReferenceGrant in that other namespace allows it. The batch gateway's cross-namespace
// credentials Secret and the inference gateway's cross-namespace discovery (a Gateway's MCPs,
// an Orchestrator's Agents and MCPs) both ask here, through the one informer of every
// ReferenceGrant (ReferenceGrantAPI) the optional APIs keep.

// ReferenceGrantAPI is the optional API of users' ReferenceGrants: every object, since they
// carry no label of ours. A kind that checks consent lists it among its OptionalAPIs.
var ReferenceGrantAPI = OptionalAPI{GVR: ReferenceGrantGVR, AllObjects: true}

// Reference is one object's use of an object of another namespace.
type Reference struct {
	// From is the kind of the referencing object, in FromNamespace.
	From          schema.GroupKind
	FromNamespace string
	// To is the kind of the referenced object, Name in ToNamespace.
	To          schema.GroupKind
	ToNamespace string
	Name        string
}

// ReferenceGrants are the ReferenceGrants of one namespace.
type ReferenceGrants []*unstructured.Unstructured

// ReferenceGrants lists the ReferenceGrants of namespace from the optional APIs' informer. A
// MissingCRDsError says Gateway API's ReferenceGrant CRD is not installed: then nothing of
// another namespace may be used.
func (o *OptionalAPIs) ReferenceGrants(namespace string) (ReferenceGrants, error) {
	objs, err := o.List(ReferenceGrantGVR, namespace)
	if err != nil {
		return nil, err
	}
	out := make(ReferenceGrants, 0, len(objs))
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			out = append(out, u)
		}
	}
	return out, nil
}

// Allow says whether one of the grants lets ref through: a "from" entry for ref's kind and
// namespace, and a "to" entry for the referenced kind with its name or without one (every
// object of the kind), as Gateway API defines it.
func (g ReferenceGrants) Allow(ref Reference) bool {
	return slices.ContainsFunc(g, func(grant *unstructured.Unstructured) bool { return grantAllows(grant, ref) })
}

func grantAllows(grant *unstructured.Unstructured, ref Reference) bool {
	if grant.GetNamespace() != ref.ToNamespace {
		return false
	}
	from, _, _ := unstructured.NestedSlice(grant.Object, "spec", "from")
	to, _, _ := unstructured.NestedSlice(grant.Object, "spec", "to")
	fromOK := slices.ContainsFunc(from, func(e any) bool {
		m, _ := e.(map[string]any)
		return m["group"] == ref.From.Group && m["kind"] == ref.From.Kind && m["namespace"] == ref.FromNamespace
	})
	toOK := slices.ContainsFunc(to, func(e any) bool {
		m, _ := e.(map[string]any)
		group, _ := m["group"].(string)
		name, _ := m["name"].(string)
		return group == ref.To.Group && m["kind"] == ref.To.Kind && (name == "" || name == ref.Name)
	})
	return fromOK && toOK
}

// GrantToCreate says, for a message, which ReferenceGrant would allow ref (named objects only:
// never anything a Secret holds).
func (ref Reference) GrantToCreate() string {
	names := fmt.Sprintf("name %s, or none for every %s", ref.Name, ref.To.Kind)
	if ref.Name == "" {
		names = fmt.Sprintf("the name of each, or none for every %s", ref.To.Kind)
	}
	return fmt.Sprintf("a ReferenceGrant in namespace %s from group %s, kind %s, namespace %s to group %s, kind %s (%s)",
		ref.ToNamespace, groupName(ref.From.Group), ref.From.Kind, ref.FromNamespace, groupName(ref.To.Group), ref.To.Kind, names)
}

func groupName(group string) string {
	if group == "" {
		return `"" (core)`
	}
	return group
}

// maxNamesInMessage bounds the names a condition lists: a selector may match many objects.
const maxNamesInMessage = 10

// GrantedObjects keeps the discovered objects a CR may use: every object of its own namespace,
// and those of another namespace that a ReferenceGrant there allows (from the CR's kind and
// namespace to the object's kind and name). When it skips any, or cannot look because Gateway
// API's ReferenceGrant CRD is not installed (then cross-namespace discovery is off), problem
// says so for the CR's conditions: what was skipped and the grant to create, by name. field is
// the spec field of the discovery, for the message. err is a failed read (retried).
func GrantedObjects[T metav1.Object](optional *OptionalAPIs, from metav1.Object, fromKind, toKind schema.GroupKind, namespace, field string, objs []T) (kept []T, problem *StepError, err error) {
	if namespace == from.GetNamespace() {
		return objs, nil, nil
	}
	ref := Reference{From: fromKind, FromNamespace: from.GetNamespace(), To: toKind, ToNamespace: namespace}
	grants, err := optional.ReferenceGrants(namespace)
	var missing *MissingCRDsError
	switch {
	case errors.As(err, &missing):
		return nil, Problem(ReasonReferenceNotPermitted,
			"%s discovers %ss in namespace %s, which needs %s, but Gateway API's ReferenceGrant CRD (%s) is not installed: cross-namespace discovery is off (%d found there, none used)",
			field, toKind.Kind, namespace, ref.GrantToCreate(), CRDName(ReferenceGrantGVR), len(objs)), nil
	case err != nil:
		return nil, nil, err
	}
	var skipped []string
	for _, obj := range objs {
		ref.Name = obj.GetName()
		if grants.Allow(ref) {
			kept = append(kept, obj)
		} else {
			skipped = append(skipped, obj.GetName())
		}
	}
	if len(skipped) == 0 {
		return kept, nil, nil
	}
	// Sorted: the informer's order is not stable, the condition's message must be.
	slices.Sort(skipped)
	ref.Name = ""
	return kept, Problem(ReasonReferenceNotPermitted,
		"%s discovers %ss in namespace %s, and no ReferenceGrant there allows %s: skipped %s; to use them, create %s",
		field, toKind.Kind, namespace, plural(len(skipped), "it", "them"), namesList(skipped), ref.GrantToCreate()), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// namesList lists names for a message, the first maxNamesInMessage of them.
func namesList(names []string) string {
	if len(names) <= maxNamesInMessage {
		return "[" + strings.Join(names, " ") + "]"
	}
	return fmt.Sprintf("[%s] and %d more", strings.Join(names[:maxNamesInMessage], " "), len(names)-maxNamesInMessage)
}

// CrossNamespaceKeys maps an event of a ReferenceGrant (in namespace) to the CRs whose
// selections reach into that namespace from another: the grant may allow or forbid what they
// discover there, so they sync again (a grant removed drops what it allowed at once).
func CrossNamespaceKeys[CR metav1.Object](crs []CR, selections func(CR) []LabelSelection, namespace string) []string {
	var keys []string
	for _, cr := range crs {
		if cr.GetNamespace() == namespace {
			continue
		}
		for _, s := range selections(cr) {
			if s.Namespace == namespace {
				keys = append(keys, cr.GetNamespace()+"/"+cr.GetName())
				break
			}
		}
	}
	return keys
}

// IsReferenceGrant says whether an informer's object is a ReferenceGrant, and its namespace.
func IsReferenceGrant(obj any) (namespace string, ok bool) {
	ro, m, ok := ObjectOf(obj)
	if !ok || KindOf(ro).GroupKind() != (schema.GroupKind{Group: ReferenceGrantGVR.Group, Kind: "ReferenceGrant"}) {
		return "", false
	}
	return m.GetNamespace(), true
}
