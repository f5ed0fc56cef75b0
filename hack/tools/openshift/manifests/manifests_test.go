package manifests

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestObjects: every SCC the admission plugin requires is there with its ClusterRole, and the
// SCCs come out defaulted as OpenShift stores them.
func TestObjects(t *testing.T) {
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		byName[o.GetKind()+"/"+o.GetName()] = o
	}
	// sccadmission's standardSCCNames: pods are refused while one is missing.
	for _, name := range []string{"anyuid", "hostaccess", "hostmount-anyuid", "hostnetwork", "hostnetwork-v2", "nonroot", "nonroot-v2", "privileged", "restricted", "restricted-v2"} {
		if byName["SecurityContextConstraints/"+name] == nil {
			t.Errorf("SCC %s missing", name)
		}
		if byName["ClusterRole/system:openshift:scc:"+name] == nil {
			t.Errorf("ClusterRole system:openshift:scc:%s missing", name)
		}
	}
	binding := byName["ClusterRoleBinding/system:openshift:scc:restricted-v2"]
	if binding == nil {
		t.Fatal("ClusterRoleBinding system:openshift:scc:restricted-v2 missing")
	}
	subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
	if len(subjects) != 1 || subjects[0].(map[string]any)["name"] != "system:authenticated" {
		t.Errorf("restricted-v2 is bound to %v, want system:authenticated", subjects)
	}
	for _, tc := range []struct {
		scc   string
		field []string
		want  any
	}{
		// Set by sccdefaults.SetDefaults_SCC where the manifest has nothing.
		{"privileged", []string{"allowPrivilegeEscalation"}, true},
		{"restricted-v2", []string{"supplementalGroups", "type"}, "RunAsAny"},
		{"anyuid", []string{"allowPrivilegeEscalation"}, true},
	} {
		got, _, _ := unstructured.NestedFieldNoCopy(byName["SecurityContextConstraints/"+tc.scc].Object, tc.field...)
		if got != tc.want {
			t.Errorf("%s %v = %v, want %v", tc.scc, tc.field, got, tc.want)
		}
	}
}
