package engine

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Renderer turns an embedded manifest into the object the operator applies: placeholders
// substituted, the operator's labels set and an owner reference to the CR.
type Renderer struct {
	// Manifests holds the embedded manifests (the repository's bindata.FS).
	Manifests fs.FS
	// Placeholders maps each placeholder (e.g. "${NAMESPACE}") to its value. Substitution is
	// exact string replacement: manifests may contain "$$" and "$(VAR)" that must stay as they
	// are.
	Placeholders map[string]string
	// Labels are set on every rendered object, on top of the manifest's own.
	Labels map[string]string
	// Owner is the CR; nil renders without an owner reference.
	Owner *metav1.OwnerReference
	// Unowned says which objects must never get the owner reference: those whose garbage
	// collection with the CR would destroy users' data (a CRD, say).
	Unowned func(metav1.Object) bool

	// replacer substitutes Placeholders; nil: built for each manifest (Prepared builds it once).
	replacer *strings.Replacer
}

// Prepared is r with its placeholders' replacer built once, for rendering several manifests:
// building a strings.Replacer allocates its lookup tables, and a sync of a Gateway built one per
// manifest (1.4% of the operator's CPU in bench-anchors' gateway-500 profile).
func (r Renderer) Prepared() Renderer {
	r.replacer = r.newReplacer()
	return r
}

// Object renders an embedded manifest into an unstructured object: parsed first, then the
// placeholders replaced inside string values only, so a substituted value (a CR's name, say)
// can never change an object's structure, and "$$" or "$(VAR)" elsewhere stay as they are.
func (r Renderer) Object(asset string) (*unstructured.Unstructured, error) {
	obj, err := r.Manifest(asset)
	if err != nil {
		return nil, err
	}
	r.Stamp(obj)
	return obj, nil
}

// Manifest is Object without the operator's labels and owner reference.
func (r Renderer) Manifest(asset string) (*unstructured.Unstructured, error) {
	if r.Manifests == nil {
		return nil, fmt.Errorf("%s: the renderer has no manifests", asset)
	}
	obj, err := parsedManifest(r.Manifests, asset)
	if err != nil {
		return nil, err
	}
	replacer := r.replacer
	if replacer == nil {
		replacer = r.newReplacer()
	}
	obj.Object = substituteStrings(obj.Object, replacer).(map[string]any)
	return obj, nil
}

func (r Renderer) newReplacer() *strings.Replacer {
	pairs := make([]string, 0, 2*len(r.Placeholders))
	for _, k := range slices.Sorted(maps.Keys(r.Placeholders)) {
		pairs = append(pairs, k, r.Placeholders[k])
	}
	return strings.NewReplacer(pairs...)
}

// substituteStrings replaces placeholders in every string value of a parsed manifest (never in
// keys).
func substituteStrings(node any, replacer *strings.Replacer) any {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			n[k] = substituteStrings(v, replacer)
		}
	case []any:
		for i, v := range n {
			n[i] = substituteStrings(v, replacer)
		}
	case string:
		return replacer.Replace(n)
	}
	return node
}

// embeddedManifests holds every manifest of an embed.FS once parsed (its files never change):
// a sync renders each of its CR's manifests, and parsing their YAML anew each time was the
// largest allocation of a sync (about 20 MiB in flight at 1,000 CRs). Each render gets a deep
// copy.
var embeddedManifests sync.Map // embeddedManifest -> *unstructured.Unstructured

type embeddedManifest struct {
	fsys embed.FS
	path string
}

// manifestParses counts the YAML manifests parsed, for tests.
var manifestParses atomic.Int64

// parsedManifest reads and parses one manifest; a copy of the one parsed before for an
// embed.FS.
func parsedManifest(fsys fs.FS, path string) (*unstructured.Unstructured, error) {
	embedded, cacheable := fsys.(embed.FS)
	key := embeddedManifest{embedded, path}
	if cacheable {
		if obj, ok := embeddedManifests.Load(key); ok {
			return obj.(*unstructured.Unstructured).DeepCopy(), nil
		}
	}
	raw, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	obj, err := DecodeManifest(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cacheable {
		embeddedManifests.Store(key, obj.DeepCopy())
	}
	return obj, nil
}

// DecodeManifest parses one YAML object.
func DecodeManifest(raw []byte) (*unstructured.Unstructured, error) {
	manifestParses.Add(1)
	jsonBytes, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(jsonBytes); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return obj, nil
}

// Stamp sets the operator's labels and owner reference on an object it manages.
func (r Renderer) Stamp(obj metav1.Object) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range r.Labels {
		labels[k] = v
	}
	labels[ManagedByLabel] = ManagedByValue
	obj.SetLabels(labels)

	if r.Owner == nil || (r.Unowned != nil && r.Unowned(obj)) {
		return
	}
	obj.SetOwnerReferences([]metav1.OwnerReference{*r.Owner})
}

// RenderTyped renders an embedded manifest into its typed form, for steps that change the
// object before applying it.
func RenderTyped[T any](r Renderer, asset string) (*T, error) {
	obj, err := r.Object(asset)
	if err != nil {
		return nil, err
	}
	return FromUnstructured[T](obj)
}

// FromUnstructured converts a rendered object into its typed form.
func FromUnstructured[T any](obj interface{ UnstructuredContent() map[string]any }) (*T, error) {
	into := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.UnstructuredContent(), into); err != nil {
		return nil, fmt.Errorf("convert a rendered manifest: %w", err)
	}
	return into, nil
}
