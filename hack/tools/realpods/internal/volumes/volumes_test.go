package volumes

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/podenv"
)

type fakeSources struct {
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
}

func (f fakeSources) ConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	if cm, ok := f.configMaps[name]; ok {
		return cm, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (f fakeSources) Secret(ns, name string) (*corev1.Secret, error) {
	if s, ok := f.secrets[name]; ok {
		return s, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, name)
}

func mode(m int32) *int32 { return &m }
func yes() *bool          { b := true; return &b }

func TestKeyPayloads(t *testing.T) {
	src := fakeSources{
		configMaps: map[string]*corev1.ConfigMap{"cfg": {Data: map[string]string{"a.yaml": "A", "b": "B"}, BinaryData: map[string][]byte{"bin": {1, 2}}}},
		secrets:    map[string]*corev1.Secret{"s": {Data: map[string][]byte{"token": []byte("t")}}},
	}
	all, err := ConfigMapPayload(src, "ns", &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Payload{"a.yaml": {[]byte("A"), 0o644}, "b": {[]byte("B"), 0o644}, "bin": {[]byte{1, 2}, 0o644}}); !reflect.DeepEqual(all, want) {
		t.Errorf("all keys: %v, want %v", all, want)
	}
	items, err := ConfigMapPayload(src, "ns", &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}, DefaultMode: mode(0o440),
		Items: []corev1.KeyToPath{{Key: "a.yaml", Path: "conf/config.yaml"}, {Key: "b", Path: "b.txt", Mode: mode(0o600)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Payload{"conf/config.yaml": {[]byte("A"), 0o440}, "b.txt": {[]byte("B"), 0o600}}); !reflect.DeepEqual(items, want) {
		t.Errorf("items: %v, want %v", items, want)
	}
	if _, err := SecretPayload(src, "ns", &corev1.SecretVolumeSource{SecretName: "s", Items: []corev1.KeyToPath{{Key: "nope", Path: "x"}}}); err == nil {
		t.Error("a missing item key is no error")
	}
	if p, err := SecretPayload(src, "ns", &corev1.SecretVolumeSource{SecretName: "gone", Optional: yes()}); err != nil || len(p) != 0 {
		t.Errorf("optional missing secret: %v, %v", p, err)
	}
	if _, err := SecretPayload(src, "ns", &corev1.SecretVolumeSource{SecretName: "s", Items: []corev1.KeyToPath{{Key: "token", Path: "../escape"}}}); err == nil {
		t.Error("an item path with .. is no error")
	}
}

func TestProjectedPayload(t *testing.T) {
	src := fakeSources{configMaps: map[string]*corev1.ConfigMap{"kube-root-ca.crt": {Data: map[string]string{"ca.crt": "CA"}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"b": "2", "a": "1"}}}
	s := &corev1.ProjectedVolumeSource{DefaultMode: mode(0o644), Sources: []corev1.VolumeProjection{
		{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: func() *int64 { v := int64(3607); return &v }()}},
		{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
		{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{
			{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}},
			{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}},
		}}},
	}}
	got, err := ProjectedPayload(src, podenv.Pod{Pod: pod}, s, func(*corev1.ServiceAccountTokenProjection) (string, error) { return "jwt", nil })
	if err != nil {
		t.Fatal(err)
	}
	want := Payload{"token": {[]byte("jwt"), 0o644}, "ca.crt": {[]byte("CA"), 0o644}, "namespace": {[]byte("ns"), 0o644}, "labels": {[]byte("a=\"1\"\nb=\"2\""), 0o644}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("projected: %v, want %v", got, want)
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != hashFile && !(len(e.Name()) > 2 && e.Name()[:2] == ".." && e.Name() != dataDir) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func TestWriteAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vol")
	changed, err := WriteAtomic(dir, Payload{"a": {[]byte("1"), 0o600}, "conf/x.yaml": {[]byte("x"), 0o644}})
	if err != nil || !changed {
		t.Fatalf("first write: %v, %v", changed, err)
	}
	if got := listDir(t, dir); !reflect.DeepEqual(got, []string{"..data", "a", "conf"}) {
		t.Errorf("entries %v", got)
	}
	if l, _ := os.Readlink(filepath.Join(dir, "a")); l != "..data/a" {
		t.Errorf("a links to %q, want ..data/a", l)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "conf/x.yaml")); string(b) != "x" {
		t.Errorf("conf/x.yaml = %q", b)
	}
	if info, _ := os.Stat(filepath.Join(dir, "a")); info.Mode().Perm() != 0o600 {
		t.Errorf("a has mode %o, want 600", info.Mode().Perm())
	}
	if changed, err := WriteAtomic(dir, Payload{"a": {[]byte("1"), 0o600}, "conf/x.yaml": {[]byte("x"), 0o644}}); err != nil || changed {
		t.Errorf("same payload rewritten: %v, %v", changed, err)
	}
	old, _ := os.Readlink(filepath.Join(dir, dataDir))
	if changed, err := WriteAtomic(dir, Payload{"a": {[]byte("2"), 0o600}}); err != nil || !changed {
		t.Fatalf("update: %v, %v", changed, err)
	}
	if got := listDir(t, dir); !reflect.DeepEqual(got, []string{"..data", "a"}) {
		t.Errorf("after update, entries %v (conf should be gone)", got)
	}
	if _, err := os.Stat(filepath.Join(dir, old)); !os.IsNotExist(err) {
		t.Errorf("old payload directory %s still there", old)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a")); string(b) != "2" {
		t.Errorf("a = %q after update", b)
	}
}

func TestSetOwnership(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root") // the machines here are root; make test-realpods runs as root
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetOwnership(dir, 2000, false, nil); err != nil {
		t.Fatal(err)
	}
	check := func(p string, wantMode os.FileMode) {
		t.Helper()
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if gid := info.Sys().(*syscall.Stat_t).Gid; gid != 2000 {
			t.Errorf("%s: gid %d, want 2000", p, gid)
		}
		if got := info.Mode() & (os.ModePerm | os.ModeSetgid); got != wantMode {
			t.Errorf("%s: mode %v, want %v", p, got, wantMode)
		}
	}
	check(dir, 0o775|os.ModeSetgid)
	check(filepath.Join(dir, "f"), 0o660)
	ro := t.TempDir()
	if err := os.WriteFile(filepath.Join(ro, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetOwnership(ro, 3000, true, nil); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(filepath.Join(ro, "f")); info.Mode().Perm() != 0o640 {
		t.Errorf("read-only volume file mode %o, want 640", info.Mode().Perm())
	}
}

func TestSubPath(t *testing.T) {
	vol := t.TempDir()
	if err := os.Symlink("/etc", filepath.Join(vol, "evil")); err != nil {
		t.Fatal(err)
	}
	p, err := SubPath(vol, "data/x")
	if err != nil || p != filepath.Join(vol, "data/x") {
		t.Errorf("SubPath(data/x) = %q, %v", p, err)
	}
	if info, err := os.Stat(p); err != nil || !info.IsDir() {
		t.Errorf("subPath not created as a directory: %v", err)
	}
	for _, bad := range []string{"../x", "/abs", "evil", "a/../../x"} {
		if _, err := SubPath(vol, bad); err == nil {
			t.Errorf("SubPath(%q) is no error", bad)
		}
	}
}
