package manifests

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// operandServiceAccount is the LeaderWorkerSet controller's ServiceAccount, which its Deployment
// (bindata) runs as and deploy/14_lws-operand-rbac.yaml defines and binds.
const operandServiceAccount = "lws-controller-manager"

// grant is a rule a ServiceAccount holds through a binding of deploy/: cluster-wide (Namespace
// "", a ClusterRoleBinding) or in one namespace (a RoleBinding).
type grant struct {
	file, role string
	namespace  string
	rbacv1.PolicyRule
}

// deployObjects are the objects of deploy/*.yaml (what kubectl apply -f deploy/ applies), each
// decoded into its typed object.
func deployObjects(t *testing.T) []interface{} {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "deploy", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []interface{}
	for _, f := range files {
		rel := "deploy/" + filepath.Base(f)
		for _, doc := range documents(t, rel, readFile(t, rel)) {
			obj, ok := newObject(doc.Kind)
			if !ok {
				t.Fatalf("%s: unexpected kind %q", rel, doc.Kind)
			}
			decodeStrict(t, rel, doc.raw, obj)
			out = append(out, obj)
		}
	}
	return out
}

// grantsOf returns every rule that deploy/ gives the ServiceAccount account of the operator's
// namespace, through the roles deploy/ defines. Bindings to Kubernetes' own roles
// (system:auth-delegator, extension-apiserver-authentication-reader) are left out: deploy/ does
// not say what they grant, and 07_auth-delegator.yaml's tests do.
func grantsOf(t *testing.T, account string) []grant {
	t.Helper()
	objects := deployObjects(t)
	clusterRoles, roles := map[string]*rbacv1.ClusterRole{}, map[string]*rbacv1.Role{}
	for _, o := range objects {
		switch r := o.(type) {
		case *rbacv1.ClusterRole:
			clusterRoles[r.Name] = r
		case *rbacv1.Role:
			roles[r.Namespace+"/"+r.Name] = r
		}
	}
	subject := rbacv1.Subject{Kind: "ServiceAccount", Name: account, Namespace: namespace}
	var out []grant
	add := func(file, ns string, ref rbacv1.RoleRef) {
		var rules []rbacv1.PolicyRule
		switch {
		case ref.Kind == "ClusterRole" && clusterRoles[ref.Name] != nil:
			rules = clusterRoles[ref.Name].Rules
		case ref.Kind == "Role" && roles[ns+"/"+ref.Name] != nil:
			rules = roles[ns+"/"+ref.Name].Rules
		default:
			return
		}
		for _, r := range rules {
			out = append(out, grant{file: file, role: ref.Kind + " " + ref.Name, namespace: ns, PolicyRule: r})
		}
	}
	for _, o := range objects {
		switch b := o.(type) {
		case *rbacv1.ClusterRoleBinding:
			if slices.Contains(b.Subjects, subject) {
				add("ClusterRoleBinding "+b.Name, "", b.RoleRef)
			}
		case *rbacv1.RoleBinding:
			if slices.Contains(b.Subjects, subject) {
				add("RoleBinding "+b.Namespace+"/"+b.Name, b.Namespace, b.RoleRef)
			}
		}
	}
	return out
}

// right is one right: a verb on one resource of one group under one name (any name: ""),
// or a verb on a non-resource URL.
type right struct {
	namespace, verb, group, resource, name, url string
}

func (p right) String() string {
	where := "cluster-wide"
	if p.namespace != "" {
		where = "in namespace " + p.namespace
	}
	if p.url != "" {
		return fmt.Sprintf("%s %s %s", p.verb, p.url, where)
	}
	return describe(p.verb, p.group, p.resource, p.name) + " " + where
}

func (p right) rule() rbacv1.PolicyRule {
	if p.url != "" {
		return rbacv1.PolicyRule{Verbs: []string{p.verb}, NonResourceURLs: []string{p.url}}
	}
	r := rbacv1.PolicyRule{Verbs: []string{p.verb}, APIGroups: []string{p.group}, Resources: []string{p.resource}}
	if p.name != "" {
		r.ResourceNames = []string{p.name}
	}
	return r
}

// rights splits grants into single rights, each once.
func rights(grants []grant) []right {
	var out []right
	add := func(p right) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, g := range grants {
		for _, verb := range g.Verbs {
			for _, url := range g.NonResourceURLs {
				add(right{namespace: g.namespace, verb: verb, url: url})
			}
			names := g.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, group := range g.APIGroups {
				for _, resource := range g.Resources {
					for _, name := range names {
						add(right{namespace: g.namespace, verb: verb, group: group, resource: resource, name: name})
					}
				}
			}
		}
	}
	return out
}

// neededRequests are every request the operator makes: each registered kind's Requests and the
// operator's own (registry.OperatorRequests), the one declaration of each right it needs.
func neededRequests() []registry.Request {
	all := operands.All()
	needed := registry.OperatorRequests(all, namespace)
	for _, r := range all {
		needed = append(needed, r.Requests(namespace)...)
	}
	return needed
}

// TestEveryGrantIsRequested is TestEveryKindsRequestsAreGranted the other way round: it derives
// the operator's rights from deploy/ (every role bound to its ServiceAccount: 03_clusterrole.yaml,
// 05_role.yaml, any other), and fails on any right that no registered kind's Requests and not
// the operator's own requests (registry.OperatorRequests) need, where they need it: a right
// granted cluster-wide must be needed cluster-wide, one granted in a namespace there or
// cluster-wide. The bundle's permissions are deploy/'s (TestCSVMatchesDeploy).
func TestEveryGrantIsRequested(t *testing.T) {
	needed := neededRequests()
	grants := grantsOf(t, serviceAccount)
	if len(grants) == 0 {
		t.Fatal("deploy/ grants the operator nothing")
	}
	for _, p := range rights(grants) {
		var in []rbacv1.PolicyRule
		for _, req := range needed {
			if req.Namespace == "" || req.Namespace == p.namespace {
				in = append(in, req.PolicyRule)
			}
		}
		if covered, _ := validation.Covers(in, []rbacv1.PolicyRule{p.rule()}); !covered {
			t.Errorf("deploy/ grants the operator %s, which no registered kind's Requests nor registry.OperatorRequests need: remove it, or declare the request where the code makes it", p)
		}
	}
}

// TestNamespacedGrantsAreNotClusterWideToo: a right deploy/ grants the operator in a namespace
// (05_role.yaml) is not one a cluster-wide grant already gives it. Each right is granted once,
// where it is narrowest, so a count of the rules and verbs (docs/rbac.md) counts rights, and
// narrowing the cluster-wide grant later shows, through TestEveryKindsRequestsAreGranted, the
// namespaced rights that are then needed.
func TestNamespacedGrantsAreNotClusterWideToo(t *testing.T) {
	grants := grantsOf(t, serviceAccount)
	var clusterWide []rbacv1.PolicyRule
	for _, g := range grants {
		if g.namespace == "" {
			clusterWide = append(clusterWide, g.PolicyRule)
		}
	}
	for _, p := range rights(grants) {
		if p.namespace == "" {
			continue
		}
		if covered, _ := validation.Covers(clusterWide, []rbacv1.PolicyRule{p.rule()}); covered {
			t.Errorf("deploy/ grants the operator %s, which it holds cluster-wide already: remove it from the namespace's role", p)
		}
	}
}

// TestOperatorRequestsAreGranted: the operator's own requests (leader election, events, its pod,
// delegated authentication, CRD watches) are granted where it makes them.
func TestOperatorRequestsAreGranted(t *testing.T) {
	cluster, inNamespace := operatorRules(t)
	for _, req := range registry.OperatorRequests(operands.All(), namespace) {
		owner := cluster
		if req.Namespace != "" {
			owner = inNamespace
		}
		for _, m := range uncovered(owner, req.PolicyRule) {
			t.Errorf("the operator lacks %s: add it to deploy/03_clusterrole.yaml (or 05_role.yaml) and make bundle", m)
		}
	}
}

// TestOperandRBACIsInstalled: the LeaderWorkerSet controller's ServiceAccount and rights are
// installed with the operator (deploy/, and the bundle's permissions of that ServiceAccount),
// never made by it: no registered kind applies a role or binding, so the operator needs no right
// that RBAC escalation prevention would make it hold, and it holds none on RBAC objects. The
// controller's Deployment runs as a ServiceAccount deploy/ defines, bound to every role of the
// controller: upstream's manager role, the metrics authentication role and leader election.
func TestOperandRBACIsInstalled(t *testing.T) {
	rbacKinds := []string{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}
	for _, r := range operands.All() {
		for _, a := range r.Assets {
			gvk, err := engine.ManifestKind(bindata.FS, a)
			if err != nil {
				t.Fatal(err)
			}
			if gvk.Group == rbacv1.GroupName && slices.Contains(rbacKinds, gvk.Kind) {
				t.Errorf("%s applies %s (%s): the operator would have to hold every right it grants; install it with the operator in deploy/", r.GVK.Kind, a, gvk.Kind)
			}
		}
	}
	// On RBAC objects, only reads and updates of the installed ones by name (dropping the owner
	// reference to the CR that earlier releases gave them: the API server refuses any change to
	// their rules or subjects from a subject that does not hold their rights).
	for _, p := range rights(grantsOf(t, serviceAccount)) {
		if p.group == rbacv1.GroupName && (p.name == "" || (p.verb != "get" && p.verb != "update")) {
			t.Errorf("the operator may %s", p)
		}
	}

	// Each installed object is one the operator releases from the CR's ownership (an upgrade
	// from a release that made it): its name is in the LWS kind's requests.
	var lwsRequests []rbacv1.PolicyRule
	for _, r := range operands.All() {
		if !r.Namespaced {
			for _, req := range r.Requests(namespace) {
				lwsRequests = append(lwsRequests, req.PolicyRule)
			}
		}
	}
	for _, file := range []string{"deploy/13_lws-manager-role.yaml", "deploy/14_lws-operand-rbac.yaml"} {
		for _, doc := range documents(t, file, readFile(t, file)) {
			obj, _ := newObject(doc.Kind)
			decodeStrict(t, file, doc.raw, obj)
			name := obj.(interface{ GetName() string }).GetName()
			gvr, err := engine.ResourceFor(doc.GroupVersionKind())
			if err != nil {
				t.Fatal(err)
			}
			if m := uncovered(lwsRequests, rule(gvr, "update", name)); len(m) > 0 {
				t.Errorf("%s: the LWS kind does not release %s %s from the CR's ownership (installedRBAC)", file, doc.Kind, name)
			}
		}
	}

	dep := decodeAsset[appsv1.Deployment](t, bindata.LWSDeployment)
	if got := dep.Spec.Template.Spec.ServiceAccountName; got != operandServiceAccount {
		t.Fatalf("the LWS controller runs as %q, want %s", got, operandServiceAccount)
	}
	defined := slices.ContainsFunc(deployObjects(t), func(o interface{}) bool {
		sa, ok := o.(*corev1.ServiceAccount)
		return ok && sa.Namespace == namespace && sa.Name == operandServiceAccount
	})
	if !defined {
		t.Errorf("deploy/ does not define the ServiceAccount %s/%s", namespace, operandServiceAccount)
	}
	grants := grantsOf(t, operandServiceAccount)
	var held []string
	for _, g := range grants {
		if !slices.Contains(held, g.role) {
			held = append(held, g.role)
		}
	}
	for _, want := range []string{"ClusterRole lws-manager-role", "ClusterRole lws-metrics-auth-role", "Role lws-leader-election-role"} {
		if !slices.Contains(held, want) {
			t.Errorf("deploy/ does not bind %s to %s (bound: %v)", want, operandServiceAccount, held)
		}
	}
	// Upstream's rules, as generated, reach the controller cluster-wide.
	var cluster []rbacv1.PolicyRule
	for _, g := range grants {
		if g.namespace == "" {
			cluster = append(cluster, g.PolicyRule)
		}
	}
	for _, m := range uncoveredRules(cluster, decodeFile[rbacv1.ClusterRole](t, "deploy/13_lws-manager-role.yaml").Rules) {
		t.Errorf("the LWS controller lacks %s", m)
	}
}
