package manifests

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
)

// objectVerbs are the verbs a namespaced operand uses on each kind it applies (the engine's).
var objectVerbs = engine.ObjectVerbs

// access is one row of a namespaced operand's access table: a request it makes (allowed), or
// one it must not be able to make (denied). Its objects live in each CR's namespace, which can
// be any, under names that follow the CR's: only the operator's ClusterRole counts, and every
// permission must hold for any name.
type access struct {
	why, group, resource string
	verbs                []string
	allowed              bool
}

// checkOperandAccess checks every row of table against the operator's ClusterRole. What the
// code requests is TestEveryKindsRequestsAreGranted's, from the registry; these rows say why,
// and what the operand must never be able to do.
func checkOperandAccess(t *testing.T, table []access) {
	t.Helper()
	cluster, _ := operatorRules(t)
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
}

// TestEveryKindsRequestsAreGranted requires the operator's RBAC (deploy/, which the bundle's
// permissions follow) to grant every request of every registered kind's controller: for a
// namespaced kind, derived from its engine.Kind (its CRs, status, finalizers, events, the kinds
// of its assets and writes, its optional APIs and references); for LWS, its objects by name. A
// kind registered without its rules in deploy/03_clusterrole.yaml fails here.
func TestEveryKindsRequestsAreGranted(t *testing.T) {
	cluster, inNamespace := operatorRules(t)
	for _, r := range operands.All() {
		t.Run(r.GVK.Kind, func(t *testing.T) {
			requests := r.Requests(namespace)
			if len(requests) == 0 {
				t.Fatal("no requests")
			}
			for _, req := range requests {
				owner := cluster
				if req.Namespace != "" {
					owner = inNamespace
				}
				for _, m := range uncovered(owner, req.PolicyRule) {
					t.Errorf("the operator lacks %s: add it to deploy/03_clusterrole.yaml (or 05_role.yaml) and make bundle", m)
				}
			}
		})
	}
}

// TestCRDWatches requires the operator's ClusterRole to let it list and watch, by name, the CRD
// of every API it watches (one informer per CRD, field selector metadata.name=<name>).
func TestCRDWatches(t *testing.T) {
	cluster, _ := operatorRules(t)
	var names []string
	var apis []engine.OptionalAPI
	for _, r := range operands.All() {
		names = append(names, r.CRDs...)
		apis = append(apis, r.OptionalAPIs(namespace)...)
	}
	for _, api := range apis {
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

// userRoles are the ClusterRoles of one deploy/ file that let users work with an operand's CRs,
// aggregated into Kubernetes' admin and edit (edit) and view (view) roles.
type userRoles struct {
	file string
	// bundleFiles are the bundle's copies of file's ClusterRoles, in file's order, one object
	// per file as registry+v1 bundles want them.
	bundleFiles []string
	edit, view  string
	group       string
	// resources are the CRs' resources; each has a status subresource.
	resources []string
}

// userRoleSets are the users' roles files of deploy/ (deploy/*-roles.yaml, which hack/kindgen
// generates, one per API group of namespaced kinds): each file's edit and view ClusterRoles (by
// their aggregation labels), its API group (their rules'), and the registered kinds of that
// group, which the roles must reach.
func userRoleSets(t *testing.T) []userRoles {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "deploy", "*-roles.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no deploy/*-roles.yaml (%v)", err)
	}
	var sets []userRoles
	for _, f := range files {
		rel := "deploy/" + filepath.Base(f)
		set := userRoles{file: rel}
		for _, doc := range documents(t, rel, readFile(t, rel)) {
			role := &rbacv1.ClusterRole{}
			decodeStrict(t, rel, doc.raw, role)
			set.bundleFiles = append(set.bundleFiles, "manifests/"+role.Name+"_rbac.authorization.k8s.io_v1_clusterrole.yaml")
			switch {
			case role.Labels["rbac.authorization.k8s.io/aggregate-to-edit"] == "true":
				set.edit = role.Name
			case role.Labels["rbac.authorization.k8s.io/aggregate-to-view"] == "true":
				set.view = role.Name
			}
			if len(role.Rules) > 0 && len(role.Rules[0].APIGroups) == 1 {
				set.group = role.Rules[0].APIGroups[0]
			}
		}
		for _, r := range operands.All() {
			if r.Namespaced && r.GVK.Group == set.group {
				set.resources = append(set.resources, r.Resource)
			}
		}
		if set.edit == "" || set.view == "" || len(set.resources) == 0 {
			t.Errorf("%s: want an edit and a view ClusterRole of a registered API group, got %+v", rel, set)
		}
		sets = append(sets, set)
	}
	return sets
}

// userRoleBundleFiles are the bundle files of every userRoleSets entry.
func userRoleBundleFiles(t *testing.T) []string {
	var files []string
	for _, set := range userRoleSets(t) {
		files = append(files, set.bundleFiles...)
	}
	return files
}

// TestUserRoles checks the ClusterRoles aggregated into Kubernetes' admin, edit and view roles:
// what each lets a user do with the operand's CRs, that they reach nothing else, and that the
// bundle carries the same objects as deploy/.
func TestUserRoles(t *testing.T) {
	read := []string{"get", "list", "watch"}
	write := []string{"create", "update", "patch", "delete", "deletecollection"}
	sets := userRoleSets(t)
	for _, r := range operands.All() {
		if r.Namespaced && !slices.ContainsFunc(sets, func(set userRoles) bool {
			return set.group == r.GVK.Group && slices.Contains(set.resources, r.Resource)
		}) {
			t.Errorf("%s is registered but no user role set (deploy/*-roles.yaml: make generate) lets admins, editors and viewers reach %s", r.GVK.Kind, r.Resource)
		}
	}
	for _, set := range sets {
		t.Run(set.file, func(t *testing.T) {
			roles := decodeUserRoles(t, set)
			gvr := func(resource string) schema.GroupVersionResource {
				return schema.GroupVersionResource{Group: set.group, Resource: resource}
			}
			editAllowed, editDenied := map[schema.GroupVersionResource][]string{}, map[schema.GroupVersionResource][]string{}
			viewAllowed, viewDenied := map[schema.GroupVersionResource][]string{}, map[schema.GroupVersionResource][]string{}
			var reachable []string
			for _, res := range set.resources {
				crs, status, finalizers := gvr(res), gvr(res+"/status"), gvr(res+"/finalizers")
				reachable = append(reachable, crs.Resource, status.Resource)
				editAllowed[crs], editAllowed[status] = slices.Concat(read, write), []string{"get"}
				// Status and owner references are the operator's.
				editDenied[status], editDenied[finalizers] = []string{"update", "patch"}, []string{"update"}
				viewAllowed[crs], viewAllowed[status] = read, read
				viewDenied[crs], viewDenied[status] = write, []string{"update", "patch"}
			}
			for _, tc := range []struct {
				name            string
				aggregates      []string
				allowed, denied map[schema.GroupVersionResource][]string
			}{
				{set.edit, []string{"admin", "edit"}, editAllowed, editDenied},
				{set.view, []string{"view"}, viewAllowed, viewDenied},
			} {
				t.Run(tc.name, func(t *testing.T) {
					role := roles[tc.name]
					if role == nil {
						t.Fatalf("%s does not define it", set.file)
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
					// Nothing beyond the CRs and their status: aggregation adds these rules to
					// every admin, editor or viewer of every namespace.
					for _, r := range role.Rules {
						if !slices.Equal(r.APIGroups, []string{set.group}) || len(r.NonResourceURLs) > 0 || len(r.ResourceNames) > 0 ||
							slices.ContainsFunc(r.Resources, func(res string) bool { return !slices.Contains(reachable, res) }) ||
							slices.Contains(r.Verbs, rbacv1.VerbAll) {
							t.Errorf("rule %+v reaches beyond %v, or uses a wildcard", r, reachable)
						}
					}
				})
			}
		})
	}
}

// decodeUserRoles reads the ClusterRoles of set.file by name, and requires each bundle file to
// hold the same object as the document of set.file in its place.
func decodeUserRoles(t *testing.T, set userRoles) map[string]*rbacv1.ClusterRole {
	t.Helper()
	docs := documents(t, set.file, readFile(t, set.file))
	if len(docs) != len(set.bundleFiles) {
		t.Fatalf("%s holds %d objects, want %d", set.file, len(docs), len(set.bundleFiles))
	}
	roles := map[string]*rbacv1.ClusterRole{}
	for i, doc := range docs {
		role := &rbacv1.ClusterRole{}
		decodeStrict(t, set.file, doc.raw, role)
		roles[role.Name] = role
		bundled := decodeFile[rbacv1.ClusterRole](t, set.bundleFiles[i])
		if !apiequality.Semantic.DeepEqual(bundled, role) {
			got, _ := yaml.Marshal(bundled)
			want, _ := yaml.Marshal(role)
			t.Errorf("%s differs from %s's %s (-deploy +bundle):\n%s", set.bundleFiles[i], set.file, role.Name, lineDiff(string(want), string(got)))
		}
	}
	return roles
}
