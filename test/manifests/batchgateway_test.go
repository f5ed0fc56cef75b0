package manifests

import (
	"fmt"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/lws"
)

// objectVerbs are the verbs the batch gateway operand uses on each kind it applies: list and
// watch (cluster-wide informers selecting the managed-by label), get (a cache miss reads from
// the API), create and update (resourceapply), delete (a feature turned off; the UID
// precondition of the engine's delete). Never patch.
var objectVerbs = []string{"get", "list", "watch", "create", "update", "delete"}

// TestBatchGatewayAccess proves that the operator's ClusterRole grants every request the LLM
// batch gateway operand makes, and not more than the table says. Its objects live in each
// LLMBatchGateway's namespace, which can be any, under names that follow the CR's: only the
// ClusterRole counts, and every permission must hold for any name.
func TestBatchGatewayAccess(t *testing.T) {
	cluster, _ := operatorRules(t)
	const batch = batchv1alpha1.GroupName
	type access struct {
		why, group, resource string
		verbs                []string
		allowed              bool
	}
	table := []access{
		{"the CR informer (every namespace)", batch, "llmbatchgateways", []string{"list", "watch"}, true},
		{"writeStatus: UpdateStatus", batch, "llmbatchgateways/status", []string{"update"}, true},
		{"owner references with blockOwnerDeletion (OwnerReferencesPermissionEnforcement)", batch, "llmbatchgateways/finalizers", []string{"update"}, true},
		{"the operand's objects", "apps", "deployments", objectVerbs, true},
		{"the operand's objects", "", "configmaps", objectVerbs, true},
		{"the operand's objects", "", "services", objectVerbs, true},
		{"the operand's objects", "", "serviceaccounts", objectVerbs, true},
		{"referenced Secrets (one informer each, any namespace) and the <cr>-credentials copy", "", "secrets", objectVerbs, true},
		{"events on the CR (library-go's plain recorder creates)", "", "events", []string{"create"}, true},
		{"spec.tls.certManager", "cert-manager.io", "certificates", objectVerbs, true},
		{"spec.httpRoute", "gateway.networking.k8s.io", "httproutes", objectVerbs, true},
		{"spec.monitoring", "monitoring.coreos.com", "servicemonitors", objectVerbs, true},
		{"spec.monitoring", "monitoring.coreos.com", "podmonitors", objectVerbs, true},
		{"spec.prometheusRule", "monitoring.coreos.com", "prometheusrules", objectVerbs, true},
		{"users' ReferenceGrants for a cross-namespace spec.secretRef", "gateway.networking.k8s.io", "referencegrants", []string{"list", "watch"}, true},

		// Nothing the operand does not do.
		{"the CR's spec and metadata are the user's", batch, "llmbatchgateways", []string{"create", "update", "patch", "delete"}, false},
		{"status is updated, not patched", batch, "llmbatchgateways/status", []string{"patch"}, false},
		{"ReferenceGrants are the user's", "gateway.networking.k8s.io", "referencegrants", []string{"get", "create", "update", "patch", "delete"}, false},
		{"resourceapply never patches Secrets", "", "secrets", []string{"patch", "deletecollection"}, false},
		{"no collection deletes", "apps", "deployments", []string{"deletecollection"}, false},
		{"no namespaces", "", "namespaces", []string{"get", "list", "create"}, false},
	}
	for _, tc := range table {
		for _, verb := range tc.verbs {
			t.Run(fmt.Sprintf("%s %s.%s", verb, tc.resource, tc.group), func(t *testing.T) {
				missing := uncovered(cluster, rule(schema.GroupVersionResource{Group: tc.group, Resource: tc.resource}, verb, ""))
				if tc.allowed && len(missing) > 0 {
					t.Errorf("%s: the operator lacks %v in every namespace", tc.why, missing)
				}
				if !tc.allowed && len(missing) == 0 {
					t.Errorf("%s: the operator may %s %s in every namespace", tc.why, verb, tc.resource)
				}
			})
		}
	}

	// The table must follow the code: every kind the operand applies has the object verbs, and
	// every optional API it only reads is in it.
	inTable := func(gr schema.GroupResource, verbs []string) bool {
		return slices.ContainsFunc(table, func(a access) bool {
			return a.allowed && a.group == gr.Group && a.resource == gr.Resource && slices.Equal(a.verbs, verbs)
		})
	}
	for _, asset := range batchgateway.Assets() {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(bindata.MustAsset(asset), &tm); err != nil {
			t.Fatalf("%s: %v", asset, err)
		}
		gvr, _ := meta.UnsafeGuessKindToResource(schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind))
		if !inTable(gvr.GroupResource(), objectVerbs) {
			t.Errorf("%s is a %s, which the table does not grant %v: add the rule to deploy/03_clusterrole.yaml, the CSV and the table", asset, tm.Kind, objectVerbs)
		}
	}
	for _, api := range batchgateway.OptionalAPIs() {
		if api.AllObjects && !inTable(api.GVR.GroupResource(), []string{"list", "watch"}) {
			t.Errorf("the operand reads %s, which the table does not grant list and watch", api.GVR.GroupResource())
		}
	}
}

// TestCRDWatches requires the operator's ClusterRole to let it list and watch, by name, the CRD
// of every API it watches (one informer per CRD, field selector metadata.name=<name>).
func TestCRDWatches(t *testing.T) {
	cluster, _ := operatorRules(t)
	names := []string{lws.CRDName}
	for _, api := range append(lws.OptionalAPIs(namespace), batchgateway.OptionalAPIs()...) {
		names = append(names, engine.CRDName(api.GVR))
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	for _, name := range names {
		for _, verb := range []string{"list", "watch"} {
			if m := uncovered(cluster, rule(crds, verb, name)); len(m) > 0 {
				t.Errorf("the operator lacks %v: add %s to the CRD list/watch rule's resourceNames", m, name)
			}
		}
	}
	// The rule stays restricted by name.
	if m := uncovered(cluster, rule(crds, "list", "")); len(m) == 0 {
		t.Error("the operator may list every CRD")
	}
}

const userRolesFile = "deploy/08_llmbatchgateway-roles.yaml"

// userRoleBundleFiles are the bundle's copies of userRolesFile's ClusterRoles, one object per
// file as registry+v1 bundles want them.
var userRoleBundleFiles = []string{
	"manifests/llm-infra-operator-llmbatchgateways-edit_rbac.authorization.k8s.io_v1_clusterrole.yaml",
	"manifests/llm-infra-operator-llmbatchgateways-view_rbac.authorization.k8s.io_v1_clusterrole.yaml",
}

// TestUserRoles checks the ClusterRoles aggregated into Kubernetes' admin, edit and view roles:
// what each lets a user do with LLMBatchGateways, that they reach nothing else, and that the
// bundle carries the same objects as deploy/.
func TestUserRoles(t *testing.T) {
	docs := documents(t, userRolesFile, readFile(t, userRolesFile))
	if len(docs) != len(userRoleBundleFiles) {
		t.Fatalf("%s holds %d objects, want %d", userRolesFile, len(docs), len(userRoleBundleFiles))
	}
	roles := map[string]*rbacv1.ClusterRole{}
	for i, doc := range docs {
		role := &rbacv1.ClusterRole{}
		decodeStrict(t, userRolesFile, doc.raw, role)
		roles[role.Name] = role
		bundled := decodeFile[rbacv1.ClusterRole](t, userRoleBundleFiles[i])
		if !apiequality.Semantic.DeepEqual(bundled, role) {
			got, _ := yaml.Marshal(bundled)
			want, _ := yaml.Marshal(role)
			t.Errorf("%s differs from %s's %s (-deploy +bundle):\n%s", userRoleBundleFiles[i], userRolesFile, role.Name, lineDiff(string(want), string(got)))
		}
	}

	const batch = batchv1alpha1.GroupName
	crs := schema.GroupVersionResource{Group: batch, Resource: "llmbatchgateways"}
	status := schema.GroupVersionResource{Group: batch, Resource: "llmbatchgateways/status"}
	finalizers := schema.GroupVersionResource{Group: batch, Resource: "llmbatchgateways/finalizers"}
	read := []string{"get", "list", "watch"}
	write := []string{"create", "update", "patch", "delete", "deletecollection"}
	for _, tc := range []struct {
		name       string
		aggregates []string
		allowed    map[schema.GroupVersionResource][]string
		denied     map[schema.GroupVersionResource][]string
	}{
		{
			name:       "llm-infra-operator-llmbatchgateways-edit",
			aggregates: []string{"admin", "edit"},
			allowed:    map[schema.GroupVersionResource][]string{crs: append(slices.Clone(read), write...), status: {"get"}},
			// Status and owner references are the operator's.
			denied: map[schema.GroupVersionResource][]string{status: {"update", "patch"}, finalizers: {"update"}},
		},
		{
			name:       "llm-infra-operator-llmbatchgateways-view",
			aggregates: []string{"view"},
			allowed:    map[schema.GroupVersionResource][]string{crs: read, status: read},
			denied:     map[schema.GroupVersionResource][]string{crs: write, status: {"update", "patch"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			role := roles[tc.name]
			if role == nil {
				t.Fatalf("%s does not define it", userRolesFile)
			}
			wantLabels := map[string]string{"app.kubernetes.io/name": operatorName}
			for _, a := range tc.aggregates {
				wantLabels["rbac.authorization.k8s.io/aggregate-to-"+a] = "true"
			}
			if !apiequality.Semantic.DeepEqual(role.Labels, wantLabels) {
				t.Errorf("labels = %v, want %v", role.Labels, wantLabels)
			}
			for gvr, verbs := range tc.allowed {
				for _, verb := range verbs {
					if m := uncovered(role.Rules, rule(gvr, verb, "")); len(m) > 0 {
						t.Errorf("lacks %v", m)
					}
				}
			}
			for gvr, verbs := range tc.denied {
				for _, verb := range verbs {
					if m := uncovered(role.Rules, rule(gvr, verb, "")); len(m) == 0 {
						t.Errorf("grants %s %s", verb, gvr.Resource)
					}
				}
			}
			// Nothing beyond LLMBatchGateways: aggregation adds these rules to every admin,
			// editor or viewer of every namespace.
			for _, r := range role.Rules {
				if !slices.Equal(r.APIGroups, []string{batch}) || len(r.NonResourceURLs) > 0 || len(r.ResourceNames) > 0 ||
					slices.ContainsFunc(r.Resources, func(res string) bool { return res != crs.Resource && res != status.Resource }) ||
					slices.Contains(r.Verbs, rbacv1.VerbAll) {
					t.Errorf("rule %+v reaches beyond LLMBatchGateways and their status, or uses a wildcard", r)
				}
			}
		})
	}
}
