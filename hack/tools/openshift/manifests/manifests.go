// Package manifests holds OpenShift's default SCCs and the RBAC that grants them (scc/README.md
// says where they come from) and installs them as OpenShift does.
package manifests

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"

	securityv1 "github.com/openshift/api/security/v1"
	"github.com/openshift/apiserver-library-go/pkg/securitycontextconstraints/sccdefaults"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

//go:embed scc/*.yaml
var files embed.FS

// FieldManager is the server-side apply manager of what Apply writes.
const FieldManager = "openshift-admission"

var resources = map[schema.GroupVersionKind]schema.GroupVersionResource{
	securityv1.GroupVersion.WithKind("SecurityContextConstraints"):                  securityv1.GroupVersion.WithResource("securitycontextconstraints"),
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}:        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}: {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
}

// Objects are the embedded manifests in file order, each SCC defaulted.
func Objects() ([]*unstructured.Unstructured, error) {
	names, err := fs.Glob(files, "scc/*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*unstructured.Unstructured
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(name), err)
		}
		if _, ok := resources[obj.GroupVersionKind()]; !ok {
			return nil, fmt.Errorf("%s: unexpected kind %s", path.Base(name), obj.GroupVersionKind())
		}
		if obj.GetKind() == "SecurityContextConstraints" {
			if obj, err = defaulted(obj); err != nil {
				return nil, fmt.Errorf("%s: %w", path.Base(name), err)
			}
		}
		out = append(out, obj)
	}
	return out, nil
}

// defaulted is the SCC as OpenShift stores it: its kube-apiserver defaults every SCC written
// (the admission plugin security.openshift.io/DefaultSecurityContextConstraints calls
// sccdefaults.SetDefaults_SCC), which a plain kube-apiserver serving the CRD does not. Without
// it, an SCC listing no volumes would allow none, where OpenShift's allows all.
func defaulted(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	scc := &securityv1.SecurityContextConstraints{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, scc); err != nil {
		return nil, err
	}
	sccdefaults.SetDefaults_SCC(scc)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(scc)
	if err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{Object: u}
	out.SetGroupVersionKind(obj.GroupVersionKind())
	unstructured.RemoveNestedField(out.Object, "metadata", "creationTimestamp")
	return out, nil
}

// Apply writes every object with server-side apply, as the kube-apiserver operator keeps them.
func Apply(ctx context.Context, client dynamic.Interface) error {
	objs, err := Objects()
	if err != nil {
		return err
	}
	for _, obj := range objs {
		data, err := obj.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = client.Resource(resources[obj.GroupVersionKind()]).Patch(ctx, obj.GetName(), types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: FieldManager, Force: ptrTrue()})
		if err != nil {
			return fmt.Errorf("apply %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

func ptrTrue() *bool { t := true; return &t }
