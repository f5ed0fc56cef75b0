// Package catalog writes a file-based catalog (FBC, what `opm serve` serves) for OLM bundle
// folders (manifests/ and metadata/, the layout `make bundle` writes), with each bundle's objects
// inside the catalog (olm.bundle.object properties) rather than behind a bundle image: OLM's
// catalog operator then installs from the catalog alone, with no image pulled and no unpack Job
// (operator-lifecycle-manager's resolver takes a bundle without a path as unpacked). make
// test-olm serves what Render writes.
//
// The one change made to a bundle: its operator's image is renamed (Bundle.OperatorImage), so
// that the real-pod agent, which tells images apart by repository only, runs each release's own
// binary although both releases name the same repository.
package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Bundle is one release's bundle folder and the image its operator's container gets.
type Bundle struct {
	Dir           string
	OperatorImage string
	// Container is the name of the operator's container in the CSV's Deployment.
	Container string
}

// The bundle annotations (metadata/annotations.yaml) the catalog takes the package from.
const (
	packageAnnotation        = "operators.operatorframework.io.bundle.package.v1"
	channelsAnnotation       = "operators.operatorframework.io.bundle.channels.v1"
	defaultChannelAnnotation = "operators.operatorframework.io.bundle.channel.default.v1"
)

// Entry is what the catalog says of one bundle (returned for the test to name what it expects).
type Entry struct {
	Name, Version, Replaces, SkipRange string
}

type bundleDoc struct {
	pkg, channel, defaultChannel string
	entry                        Entry
	properties                   []map[string]any
}

// Render reads the bundles, oldest first, and returns the catalog (one JSON document per line)
// and each bundle's entry. Every bundle must name the same package and channel, and each but the
// first must replace or skip the one before it, as the channel's upgrade edge.
func Render(bundles []Bundle) ([]byte, []Entry, error) {
	if len(bundles) == 0 {
		return nil, nil, fmt.Errorf("no bundle to render")
	}
	var docs []bundleDoc
	for _, b := range bundles {
		d, err := readBundle(b)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", b.Dir, err)
		}
		if len(docs) > 0 {
			prev := docs[len(docs)-1]
			if d.pkg != prev.pkg || d.channel != prev.channel {
				return nil, nil, fmt.Errorf("%s: package/channel %s/%s, the bundle before it %s/%s", b.Dir, d.pkg, d.channel, prev.pkg, prev.channel)
			}
			if d.entry.Replaces != prev.entry.Name {
				return nil, nil, fmt.Errorf("%s: %s replaces %q, not the bundle before it (%s): OLM would find no upgrade edge",
					b.Dir, d.entry.Name, d.entry.Replaces, prev.entry.Name)
			}
		} else {
			// The first bundle replaces nothing the catalog has: an edge to a missing bundle is
			// refused by opm's validation.
			d.entry.Replaces = ""
		}
		docs = append(docs, d)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	last := docs[len(docs)-1]
	write := func(v any) error { return enc.Encode(v) }
	if err := write(map[string]any{"schema": "olm.package", "name": last.pkg, "defaultChannel": last.defaultChannel}); err != nil {
		return nil, nil, err
	}
	var entries []map[string]any
	var result []Entry
	for _, d := range docs {
		e := map[string]any{"name": d.entry.Name}
		if d.entry.Replaces != "" {
			e["replaces"] = d.entry.Replaces
		}
		if d.entry.SkipRange != "" {
			e["skipRange"] = d.entry.SkipRange
		}
		entries = append(entries, e)
		result = append(result, d.entry)
	}
	if err := write(map[string]any{"schema": "olm.channel", "package": last.pkg, "name": last.channel, "entries": entries}); err != nil {
		return nil, nil, err
	}
	for _, d := range docs {
		// No image: the objects are in the catalog (see the package comment).
		if err := write(map[string]any{"schema": "olm.bundle", "name": d.entry.Name, "package": d.pkg, "image": "", "properties": d.properties}); err != nil {
			return nil, nil, err
		}
	}
	return out.Bytes(), result, nil
}

func readBundle(b Bundle) (bundleDoc, error) {
	var d bundleDoc
	var meta struct {
		Annotations map[string]string `json:"annotations"`
	}
	raw, err := os.ReadFile(filepath.Join(b.Dir, "metadata", "annotations.yaml"))
	if err != nil {
		return d, err
	}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		return d, fmt.Errorf("metadata/annotations.yaml: %w", err)
	}
	d.pkg, d.defaultChannel = meta.Annotations[packageAnnotation], meta.Annotations[defaultChannelAnnotation]
	d.channel = strings.Split(meta.Annotations[channelsAnnotation], ",")[0]
	if d.pkg == "" || d.channel == "" || d.defaultChannel == "" {
		return d, fmt.Errorf("metadata/annotations.yaml names no package, channel or default channel")
	}
	files, err := filepath.Glob(filepath.Join(b.Dir, "manifests", "*.yaml"))
	if err != nil {
		return d, err
	}
	sort.Strings(files)
	var objects [][]byte
	var csv *unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return d, err
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
			return d, fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
		if obj.GetKind() == "ClusterServiceVersion" {
			if csv != nil {
				return d, fmt.Errorf("two ClusterServiceVersions")
			}
			csv = obj
			if err := renameOperatorImage(csv, b.Container, b.OperatorImage); err != nil {
				return d, err
			}
		}
		j, err := json.Marshal(obj.Object)
		if err != nil {
			return d, err
		}
		objects = append(objects, j)
	}
	if csv == nil {
		return d, fmt.Errorf("manifests/ holds no ClusterServiceVersion")
	}
	version, _, _ := unstructured.NestedString(csv.Object, "spec", "version")
	replaces, _, _ := unstructured.NestedString(csv.Object, "spec", "replaces")
	d.entry = Entry{Name: csv.GetName(), Version: version, Replaces: replaces, SkipRange: csv.GetAnnotations()["olm.skipRange"]}
	if version == "" {
		return d, fmt.Errorf("%s has no spec.version", csv.GetName())
	}
	d.properties = append(d.properties, map[string]any{"type": "olm.package", "value": map[string]any{"packageName": d.pkg, "version": version}})
	owned, _, _ := unstructured.NestedSlice(csv.Object, "spec", "customresourcedefinitions", "owned")
	for _, o := range owned {
		crd, _ := o.(map[string]any)
		name, _ := crd["name"].(string)
		group := name[strings.Index(name, ".")+1:]
		d.properties = append(d.properties, map[string]any{"type": "olm.gvk", "value": map[string]any{"group": group, "kind": crd["kind"], "version": crd["version"]}})
	}
	for _, o := range objects {
		d.properties = append(d.properties, map[string]any{"type": "olm.bundle.object", "value": map[string]any{"data": o}})
	}
	return d, nil
}

// renameOperatorImage sets the image of the container named container in the CSV's install
// Deployments (see the package comment); a CSV without it is an error.
func renameOperatorImage(csv *unstructured.Unstructured, container, image string) error {
	deployments, _, _ := unstructured.NestedSlice(csv.Object, "spec", "install", "spec", "deployments")
	found := false
	for _, dep := range deployments {
		containers, _, _ := unstructured.NestedSlice(dep.(map[string]any), "spec", "template", "spec", "containers")
		for _, c := range containers {
			if c := c.(map[string]any); c["name"] == container {
				c["image"] = image
				found = true
			}
		}
		if err := unstructured.SetNestedSlice(dep.(map[string]any), containers, "spec", "template", "spec", "containers"); err != nil {
			return err
		}
	}
	if !found {
		return fmt.Errorf("%s: no container %q in its Deployments", csv.GetName(), container)
	}
	return unstructured.SetNestedSlice(csv.Object, deployments, "spec", "install", "spec", "deployments")
}
