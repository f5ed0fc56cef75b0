package engine

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
)

func TestRenderUnknownAsset(t *testing.T) {
	if _, err := (Renderer{Manifests: bindata.FS}).Object("assets/missing.yaml"); err == nil {
		t.Error("expected an error for a missing asset")
	}
}

func TestStamp(t *testing.T) {
	owner := &metav1.OwnerReference{APIVersion: "v1", Kind: "Thing", Name: "cr", UID: "uid", Controller: ptr.To(true)}
	r := Renderer{
		Manifests: bindata.FS,
		Labels:    map[string]string{PartOfLabel: "operand"},
		Owner:     owner,
		Unowned:   func(o metav1.Object) bool { return o.GetName() == "keep-me" },
	}
	tests := []struct {
		name      string
		labels    map[string]string
		wantOwner bool
	}{
		{name: "owned", labels: map[string]string{"app": "x"}, wantOwner: true},
		{name: "keep-me", wantOwner: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			obj.SetName(tt.name)
			obj.SetLabels(tt.labels)
			r.Stamp(obj)
			l := obj.GetLabels()
			if l[ManagedByLabel] != ManagedByValue || l[PartOfLabel] != "operand" {
				t.Errorf("labels = %v", l)
			}
			for k, v := range tt.labels {
				if l[k] != v {
					t.Errorf("the manifest's label %s=%s was lost: %v", k, v, l)
				}
			}
			if got := len(obj.GetOwnerReferences()) == 1; got != tt.wantOwner {
				t.Errorf("owner reference set = %v, want %v", got, tt.wantOwner)
			}
		})
	}
}

func TestDecodeManifestRejectsGarbage(t *testing.T) {
	if _, err := DecodeManifest([]byte("kind: [unclosed")); err == nil {
		t.Error("expected a parse error")
	}
}

// An embedded manifest is parsed once, not on every render (every sync renders each of its
// CR's manifests): each render gets its own copy, with its own placeholders.
func TestEmbeddedManifestsAreParsedOnce(t *testing.T) {
	const asset = "assets/batchgateway/apiserver-serviceaccount.yaml"
	render := func(name string) *unstructured.Unstructured {
		t.Helper()
		obj, err := Renderer{Manifests: bindata.FS, Placeholders: map[string]string{"${APISERVER_NAME}": name, "${NAMESPACE}": "ns"}}.Object(asset)
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	render("warm-up")
	before := manifestParses.Load()
	first := render("first")
	first.SetLabels(map[string]string{"changed": "by the caller"})
	second := render("second")
	if parsed := manifestParses.Load() - before; parsed != 0 {
		t.Errorf("%d parses for 2 renders of an embedded manifest parsed before, want 0", parsed)
	}
	if first.GetName() == second.GetName() {
		t.Errorf("both renders are named %q: placeholders were substituted in a shared copy", first.GetName())
	}
	if second.GetLabels()["changed"] != "" {
		t.Error("a change to one render reached the next")
	}
}

// A prepared renderer substitutes as one that builds its replacer per manifest, over several
// manifests; a copy made before Prepared still builds its own.
func TestPreparedRendersTheSame(t *testing.T) {
	assets := []string{"assets/batchgateway/apiserver-serviceaccount.yaml", "assets/batchgateway/apiserver-service.yaml"}
	r := Renderer{Manifests: bindata.FS, Placeholders: map[string]string{"${APISERVER_NAME}": "gw-apiserver", "${NAMESPACE}": "team-a"}}
	prepared := r.Prepared()
	if prepared.replacer == nil || r.replacer != nil {
		t.Fatalf("Prepared built no replacer, or changed the renderer it copied")
	}
	for _, asset := range assets {
		want, err := r.Manifest(asset)
		if err != nil {
			t.Fatal(err)
		}
		got, err := prepared.Manifest(asset)
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(got.Object, want.Object) {
			t.Errorf("%s: prepared render = %v, want %v", asset, got.Object, want.Object)
		}
		if got.GetName() != "gw-apiserver" || got.GetNamespace() != "team-a" {
			t.Errorf("%s: placeholders not substituted: %s/%s", asset, got.GetNamespace(), got.GetName())
		}
	}
}
