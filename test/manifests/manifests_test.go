// Package manifests tests the YAML that installs the operator: deploy/ (kubectl apply) and the
// OLM bundle in manifests/ and metadata/. The two describe the same install; these tests keep
// them in agreement, check that the operator's RBAC lets it create every operand object
// (including the RBAC escalation check) and nothing it does not need, and that its pod meets the
// restricted Pod Security profile.
package manifests

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/llm-infra/llm-infra-operator/bindata"
	igwtestcases "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	crscheme "github.com/llm-infra/llm-infra-operator/pkg/generated/clientset/versioned/scheme"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// crdBundleFiles are the CRDs of the OLM bundle, one per registered kind (hack/bundle.sh
// copies deploy/'s).
var crdBundleFiles = func() []string {
	var files []string
	for _, r := range operands.All() {
		files = append(files, "manifests/"+r.GVK.Group+"_"+r.Resource+".yaml")
	}
	sort.Strings(files)
	return files
}()

const (
	root           = "../.."
	namespace      = "openshift-llm-infra-operator"
	serviceAccount = "llm-infra-operator"
	operatorName   = "llm-infra-operator"
	operatorImage  = "quay.io/llm-infra/llm-infra-operator:latest"
	// The operand image's registry and repository; the tag is operand-git-ref.
	operandRepository  = "registry.k8s.io/lws/lws"
	operandImageEnv    = "RELATED_IMAGE_OPERAND_IMAGE"
	relatedImagePrefix = "RELATED_IMAGE_"

	csvFile         = "manifests/llm-infra-operator.clusterserviceversion.yaml"
	annotationsFile = "metadata/annotations.yaml"
	examplesDir     = "deploy/examples"
	clusterRoleFile = "deploy/03_clusterrole.yaml"
	roleFile        = "deploy/05_role.yaml"
	deploymentFile  = "deploy/10_deployment.yaml"
	namespaceFile   = "deploy/01_namespace.yaml"

	// managedByLabel marks the objects the operator manages: its informers select on it and
	// removal deletes what carries it, so the operator's own objects must never carry it.
	managedByLabel = "app.kubernetes.io/managed-by"
)

// ---------------------------------------------------------------------------------------------
// Reading files

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// document is one YAML document of a file, with its kind.
type document struct {
	file string
	raw  []byte
	metav1.TypeMeta
}

func readFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// documents splits data into its non-empty YAML documents.
func documents(t *testing.T, file string, data []byte) []document {
	t.Helper()
	var docs []document
	for _, raw := range docSeparator.Split(string(data), -1) {
		var m map[string]interface{}
		if err := yaml.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("%s: invalid YAML: %v", file, err)
		}
		if len(m) == 0 {
			continue
		}
		d := document{file: file, raw: []byte(raw)}
		if err := yaml.Unmarshal([]byte(raw), &d.TypeMeta); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		docs = append(docs, d)
	}
	return docs
}

// decodeStrict decodes data into obj and fails on unknown fields.
func decodeStrict(t *testing.T, what string, data []byte, obj interface{}) {
	t.Helper()
	if err := yaml.UnmarshalStrict(data, obj); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// decodeFile decodes the only document of a deploy/ file.
func decodeFile[T any](t *testing.T, rel string) *T {
	t.Helper()
	docs := documents(t, rel, readFile(t, rel))
	if len(docs) != 1 {
		t.Fatalf("%s: want 1 object, got %d", rel, len(docs))
	}
	obj := new(T)
	decodeStrict(t, rel, docs[0].raw, obj)
	return obj
}

// asset reads an operand manifest through the bindata package (what the operator embeds), with
// the namespace placeholder filled in.
func asset(t *testing.T, name string) []byte {
	t.Helper()
	data, err := bindata.Asset(name)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(data), bindata.NamespacePlaceholder, namespace))
}

func decodeAsset[T any](t *testing.T, name string) *T {
	t.Helper()
	obj := new(T)
	decodeStrict(t, name, asset(t, name), obj)
	return obj
}

// batchGatewayImages are the LLM batch gateway's default images: upstream's
// (config/base/params.env of llm-d-batch-gateway-operator).
var batchGatewayImages = batchgateway.Images{
	APIServer:      "quay.io/opendatahub/odh-llm-d-batch-gateway-apiserver:odh-stable",
	Processor:      "quay.io/opendatahub/odh-llm-d-batch-gateway-processor:odh-stable",
	GC:             "quay.io/opendatahub/odh-llm-d-batch-gateway-gc:odh-stable",
	AsyncProcessor: "quay.io/opendatahub/odh-llm-d-async:odh-stable",
}

func operandImage(t *testing.T) string {
	t.Helper()
	return operandRepository + ":" + strings.TrimSpace(string(readFile(t, "operand-git-ref")))
}

// ---------------------------------------------------------------------------------------------
// The ClusterServiceVersion, as far as these tests read it. (test/bundle reads it with
// operator-framework/api's type and runs OLM's validators; these tests compare it with deploy/.)

type permission struct {
	ServiceAccountName string              `json:"serviceAccountName"`
	Rules              []rbacv1.PolicyRule `json:"rules"`
}

type ownedCRD struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Kind        string `json:"kind"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
}

type csv struct {
	metav1.TypeMeta
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		DisplayName    string   `json:"displayName"`
		Description    string   `json:"description"`
		Version        string   `json:"version"`
		MinKubeVersion string   `json:"minKubeVersion"`
		Keywords       []string `json:"keywords"`
		Maintainers    []struct {
			Name  string `json:"name"`
			Email string `json:"email"`
		} `json:"maintainers"`
		Provider struct {
			Name string `json:"name"`
		} `json:"provider"`
		Links []struct {
			Name string `json:"name"`
			URL  string `json:"url"`
		} `json:"links"`
		InstallModes []struct {
			Type      string `json:"type"`
			Supported bool   `json:"supported"`
		} `json:"installModes"`
		CustomResourceDefinitions struct {
			Owned []ownedCRD `json:"owned"`
		} `json:"customresourcedefinitions"`
		RelatedImages []struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		} `json:"relatedImages"`
		Install struct {
			Strategy string `json:"strategy"`
			Spec     struct {
				ClusterPermissions []permission `json:"clusterPermissions"`
				Permissions        []permission `json:"permissions"`
				Deployments        []struct {
					Name  string                `json:"name"`
					Label map[string]string     `json:"label"`
					Spec  appsv1.DeploymentSpec `json:"spec"`
				} `json:"deployments"`
			} `json:"spec"`
		} `json:"install"`
	} `json:"spec"`
}

func readCSV(t *testing.T) *csv {
	t.Helper()
	c := &csv{}
	// Not strict: the struct above holds only the fields under test.
	if err := yaml.Unmarshal(readFile(t, csvFile), c); err != nil {
		t.Fatalf("%s: %v", csvFile, err)
	}
	return c
}

// ---------------------------------------------------------------------------------------------
// (a) deploy/

// newObject returns an empty typed object for the kinds deploy/ may contain.
func newObject(kind string) (interface{}, bool) {
	switch kind {
	case "Namespace":
		return &corev1.Namespace{}, true
	case "ServiceAccount":
		return &corev1.ServiceAccount{}, true
	case "ClusterRole":
		return &rbacv1.ClusterRole{}, true
	case "ClusterRoleBinding":
		return &rbacv1.ClusterRoleBinding{}, true
	case "Role":
		return &rbacv1.Role{}, true
	case "RoleBinding":
		return &rbacv1.RoleBinding{}, true
	case "Deployment":
		return &appsv1.Deployment{}, true
	case "Service":
		return &corev1.Service{}, true
	case "ServiceMonitor":
		return &serviceMonitor{}, true
	case "PrometheusRule":
		return &prometheusRule{}, true
	case "CustomResourceDefinition":
		return &apiextensionsv1.CustomResourceDefinition{}, true
	case "ValidatingAdmissionPolicy":
		return &admissionregistrationv1.ValidatingAdmissionPolicy{}, true
	case "ValidatingAdmissionPolicyBinding":
		return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}, true
	}
	// The operator's own kinds: every registered one, typed by the generated clientset's scheme.
	for _, r := range operands.All() {
		if r.GVK.Kind == kind {
			obj, err := crscheme.Scheme.New(r.GVK)
			return obj, err == nil
		}
	}
	return nil, false
}

type object struct {
	kind, namespace, name string
}

// anyName in a row of TestDeployFiles accepts any name but none.
const anyName = "*"

func TestDeployFiles(t *testing.T) {
	cluster := func(kind, name string) object { return object{kind, "", name} }
	namespaced := func(kind, name string) object { return object{kind, namespace, name} }
	want := map[string][]object{
		"01_namespace.yaml":          {cluster("Namespace", namespace)},
		"02_serviceaccount.yaml":     {namespaced("ServiceAccount", serviceAccount)},
		"03_clusterrole.yaml":        {cluster("ClusterRole", operatorName)},
		"04_clusterrolebinding.yaml": {cluster("ClusterRoleBinding", operatorName)},
		"05_role.yaml":               {namespaced("Role", operatorName)},
		"06_rolebinding.yaml":        {namespaced("RoleBinding", operatorName)},
		"07_auth-delegator.yaml": {
			cluster("ClusterRoleBinding", "llm-infra-operator-auth-delegator"),
			{"RoleBinding", "kube-system", "llm-infra-operator-authentication-reader"},
		},
		"10_deployment.yaml": {namespaced("Deployment", operatorName)},
		// The LeaderWorkerSet controller's rights, installed with the operator (rights_test.go).
		"13_lws-manager-role.yaml": {cluster("ClusterRole", "lws-manager-role")},
		"14_lws-operand-rbac.yaml": {
			namespaced("ServiceAccount", operandServiceAccount),
			cluster("ClusterRoleBinding", "lws-manager-rolebinding"),
			cluster("ClusterRole", "lws-metrics-auth-role"),
			cluster("ClusterRoleBinding", "lws-metrics-auth-rolebinding"),
			cluster("ClusterRole", "lws-metrics-reader"),
			namespaced("Role", "lws-leader-election-role"),
			namespaced("RoleBinding", "lws-leader-election-rolebinding"),
		},
		// The admission policy on the operator's Secret writes (secretspolicy_test.go).
		"15_secrets-policy.yaml": {
			cluster("ValidatingAdmissionPolicy", secretsPolicyName),
			cluster("ValidatingAdmissionPolicyBinding", secretsPolicyName),
		},
		"11_metrics-service.yaml": {namespaced("Service", "llm-infra-operator-metrics")},
		"12_prometheus-rbac.yaml": {
			namespaced("Role", "llm-infra-operator-prometheus"),
			namespaced("RoleBinding", "llm-infra-operator-prometheus"),
		},
		// Applied apart (kubectl apply -f deploy/monitoring/): they need the Prometheus
		// operator's CRDs.
		"monitoring/servicemonitor.yaml": {namespaced("ServiceMonitor", operatorName)},
		"monitoring/prometheusrule.yaml": {namespaced("PrometheusRule", operatorName)},
	}
	// One CRD file per registered kind (hack/update-crds.sh), and its example: the LWS
	// singleton's named "cluster", a namespaced kind's without a namespace (applied with
	// kubectl -n) under any name.
	for _, r := range operands.All() {
		want[r.CRDFile()] = []object{cluster("CustomResourceDefinition", r.CRDName())}
		if r.Namespaced {
			want["examples/"+r.Example] = []object{{r.GVK.Kind, "", anyName}}
		} else {
			want["examples/"+r.Example] = []object{cluster(r.GVK.Kind, lwsoperatorv1.SingletonName)}
		}
	}
	// Each API group's users' roles (hack/kindgen): an edit and a view ClusterRole.
	for _, set := range userRoleSets(t) {
		want[filepath.Base(set.file)] = []object{cluster("ClusterRole", set.edit), cluster("ClusterRole", set.view)}
	}

	// kubectl apply -f deploy/ reads deploy/*.yaml (not examples/ nor monitoring/); each must be
	// in the table, and so must deploy/monitoring/*.yaml.
	files, err := filepath.Glob(filepath.Join(root, "deploy", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	monitoring, err := filepath.Glob(filepath.Join(root, "deploy", "monitoring", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	examples, err := filepath.Glob(filepath.Join(root, examplesDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(monitoring, examples...) {
		if rel := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f); want[rel] == nil {
			t.Errorf("deploy/%s is not in the test table (an example is a registered kind's Example)", rel)
		}
	}
	var tens []string
	for _, f := range files {
		base := filepath.Base(f)
		if _, ok := want[base]; !ok {
			t.Errorf("deploy/%s is not in the test table", base)
		}
		if strings.HasPrefix(base, "10_") {
			tens = append(tens, base)
		}
	}
	// hack/run-local.sh applies everything but 10_*.
	if !slices.Equal(tens, []string{"10_deployment.yaml"}) {
		t.Errorf("files starting with 10_ = %v, want only the operator Deployment", tens)
	}

	for file, objects := range want {
		t.Run(file, func(t *testing.T) {
			rel := "deploy/" + file
			docs := documents(t, rel, readFile(t, rel))
			if len(docs) != len(objects) {
				t.Fatalf("got %d objects, want %d", len(docs), len(objects))
			}
			for i, doc := range docs {
				obj, ok := newObject(doc.Kind)
				if !ok {
					t.Fatalf("object %d: unexpected kind %q", i, doc.Kind)
				}
				decodeStrict(t, rel, doc.raw, obj)
				m, err := meta.Accessor(obj)
				if err != nil {
					t.Fatal(err)
				}
				got := object{doc.Kind, m.GetNamespace(), m.GetName()}
				if objects[i].name == anyName && got.name != "" {
					got.name = anyName
				}
				if got != objects[i] {
					t.Errorf("object %d = %+v, want %+v", i, got, objects[i])
				}
				if _, ok := m.GetLabels()[managedByLabel]; ok {
					t.Errorf("%s %s carries %s: the operator would treat it as its operand", doc.Kind, m.GetName(), managedByLabel)
				}
				checkBindingSubjects(t, obj)
			}
		})
	}
}

// checkBindingSubjects requires every binding in deploy/ to bind exactly the operator's
// ServiceAccount, to a role that deploy/ defines or Kubernetes provides; or exactly the
// LeaderWorkerSet controller's to its roles; or, for platform monitoring, exactly OpenShift's
// Prometheus to the Role that lets it discover its targets.
func checkBindingSubjects(t *testing.T, obj interface{}) {
	t.Helper()
	var subjects []rbacv1.Subject
	var ref rbacv1.RoleRef
	switch b := obj.(type) {
	case *rbacv1.ClusterRoleBinding:
		subjects, ref = b.Subjects, b.RoleRef
	case *rbacv1.RoleBinding:
		subjects, ref = b.Subjects, b.RoleRef
	default:
		return
	}
	if ref == (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "llm-infra-operator-prometheus"}) {
		if want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: prometheusSA, Namespace: monitoringNamespace}}; !apiequality.Semantic.DeepEqual(subjects, want) {
			t.Errorf("subjects = %+v, want %+v", subjects, want)
		}
		return
	}
	operandRoles := []rbacv1.RoleRef{
		{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "lws-manager-role"},
		{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "lws-metrics-auth-role"},
		{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "lws-leader-election-role"},
	}
	if slices.Contains(operandRoles, ref) {
		if want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: operandServiceAccount, Namespace: namespace}}; !apiequality.Semantic.DeepEqual(subjects, want) {
			t.Errorf("subjects = %+v, want %+v", subjects, want)
		}
		return
	}
	wantSubjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: serviceAccount, Namespace: namespace}}
	if !apiequality.Semantic.DeepEqual(subjects, wantSubjects) {
		t.Errorf("subjects = %+v, want %+v", subjects, wantSubjects)
	}
	known := []rbacv1.RoleRef{
		{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: operatorName},
		{APIGroup: rbacv1.GroupName, Kind: "Role", Name: operatorName},
		{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
		{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
	}
	if !slices.Contains(known, ref) {
		t.Errorf("roleRef %+v is not one of %+v", ref, known)
	}
}

// ---------------------------------------------------------------------------------------------
// (b) the bundle repeats deploy/

// normalize sorts every list in rules and then the rules themselves, so that two rule sets
// compare equal when they grant the same in the same shape, whatever the order.
func normalize(rules []rbacv1.PolicyRule) []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		r = *r.DeepCopy()
		for _, s := range [][]string{r.APIGroups, r.Resources, r.Verbs, r.ResourceNames, r.NonResourceURLs} {
			sort.Strings(s)
		}
		b, err := json.Marshal(r)
		if err != nil {
			panic(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

func TestCSVMatchesDeploy(t *testing.T) {
	c := readCSV(t)
	if c.Kind != "ClusterServiceVersion" || c.APIVersion != "operators.coreos.com/v1alpha1" {
		t.Fatalf("%s is a %s %s", csvFile, c.APIVersion, c.Kind)
	}
	if c.Spec.Install.Strategy != "deployment" {
		t.Errorf("install strategy = %q, want deployment", c.Spec.Install.Strategy)
	}
	clusterRole := decodeFile[rbacv1.ClusterRole](t, clusterRoleFile)
	role := decodeFile[rbacv1.Role](t, roleFile)
	deployment := decodeFile[appsv1.Deployment](t, deploymentFile)

	// The operand's: every role deploy/ binds to its ServiceAccount, cluster-wide and in the
	// operator's namespace.
	var operandCluster, operandRole []rbacv1.PolicyRule
	for _, g := range grantsOf(t, operandServiceAccount) {
		if g.namespace == "" {
			operandCluster = append(operandCluster, g.PolicyRule)
		} else {
			operandRole = append(operandRole, g.PolicyRule)
		}
	}
	for _, tc := range []struct {
		name    string
		got     []permission
		account string
		rules   []rbacv1.PolicyRule
	}{
		{"clusterPermissions", c.Spec.Install.Spec.ClusterPermissions, serviceAccount, clusterRole.Rules},
		{"permissions", c.Spec.Install.Spec.Permissions, serviceAccount, role.Rules},
		{"clusterPermissions", c.Spec.Install.Spec.ClusterPermissions, operandServiceAccount, operandCluster},
		{"permissions", c.Spec.Install.Spec.Permissions, operandServiceAccount, operandRole},
	} {
		t.Run(tc.name+" "+tc.account, func(t *testing.T) {
			var accounts []string
			for _, p := range tc.got {
				accounts = append(accounts, p.ServiceAccountName)
			}
			if !slices.Equal(accounts, []string{serviceAccount, operandServiceAccount}) {
				t.Fatalf("entries for %v, want %s and %s", accounts, serviceAccount, operandServiceAccount)
			}
			entry := tc.got[slices.Index(accounts, tc.account)]
			got, want := normalize(entry.Rules), normalize(tc.rules)
			for _, r := range want {
				if !slices.Contains(got, r) {
					t.Errorf("missing from the CSV: %s", r)
				}
			}
			for _, r := range got {
				if !slices.Contains(want, r) {
					t.Errorf("only in the CSV: %s", r)
				}
			}
		})
	}

	t.Run("deployment", func(t *testing.T) {
		deps := c.Spec.Install.Spec.Deployments
		if len(deps) != 1 || deps[0].Name != deployment.Name {
			t.Fatalf("want one Deployment named %s, got %d", deployment.Name, len(deps))
		}
		if !apiequality.Semantic.DeepEqual(deps[0].Label, deployment.Labels) {
			t.Errorf("label = %v, want %v", deps[0].Label, deployment.Labels)
		}
		unpinDeployment(&deps[0].Spec, &deployment.Spec)
		if !apiequality.Semantic.DeepEqual(deps[0].Spec, deployment.Spec) {
			got, _ := yaml.Marshal(deps[0].Spec)
			want, _ := yaml.Marshal(deployment.Spec)
			t.Errorf("the CSV's Deployment spec differs from %s (-%s +CSV):\n%s", deploymentFile, deploymentFile, lineDiff(string(want), string(got)))
		}
	})
}

// tagOf returns tagged when pinned is the same repository pinned by digest (a release bundle,
// make bundle IMAGE_DIGESTS=...), else pinned: the tests compare deploy/'s tags with the bundle.
func tagOf(tagged, pinned string) string {
	repo, _, ok := strings.Cut(pinned, "@sha256:")
	if !ok {
		return pinned
	}
	if i := strings.LastIndex(tagged, ":"); i > strings.LastIndex(tagged, "/") && tagged[:i] == repo {
		return tagged
	}
	return pinned
}

// unpinDeployment replaces the images of csv (containers and RELATED_IMAGE_* values) pinned by
// digest with deploy's tags of the same repository.
func unpinDeployment(csv, deploy *appsv1.DeploymentSpec) {
	for i := range csv.Template.Spec.Containers {
		if i >= len(deploy.Template.Spec.Containers) {
			return
		}
		c, d := &csv.Template.Spec.Containers[i], deploy.Template.Spec.Containers[i]
		c.Image = tagOf(d.Image, c.Image)
		for j := range c.Env {
			if j < len(d.Env) && d.Env[j].Name == c.Env[j].Name && strings.HasPrefix(c.Env[j].Name, relatedImagePrefix) {
				c.Env[j].Value = tagOf(d.Env[j].Value, c.Env[j].Value)
			}
		}
	}
}

// lineDiff returns the lines of a and b outside their longest common subsequence, prefixed with
// - and + and with the line before each for context.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	last := ""
	emit := func(prefix, line string) {
		if last != "" {
			out = append(out, "  "+last)
			last = ""
		}
		out = append(out, prefix+line)
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			last = x[i]
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			emit("- ", x[i])
			i++
		default:
			emit("+ ", y[j])
			j++
		}
	}
	return strings.Join(out, "\n")
}

// ---------------------------------------------------------------------------------------------
// (c) RBAC: the escalation check, what the operator needs, and nothing more

// operatorRules returns the operator's cluster-wide rules and the rules it holds in its
// namespace (its Role plus its ClusterRole, which applies there too).
func operatorRules(t *testing.T) (cluster, inNamespace []rbacv1.PolicyRule) {
	t.Helper()
	cluster = decodeFile[rbacv1.ClusterRole](t, clusterRoleFile).Rules
	role := decodeFile[rbacv1.Role](t, roleFile)
	if role.Namespace != namespace {
		t.Fatalf("%s is in namespace %q, want %q", roleFile, role.Namespace, namespace)
	}
	return cluster, append(slices.Clone(role.Rules), cluster...)
}

func rule(gvr schema.GroupVersionResource, verb, name string) rbacv1.PolicyRule {
	r := rbacv1.PolicyRule{APIGroups: []string{gvr.Group}, Resources: []string{gvr.Resource}, Verbs: []string{verb}}
	if name != "" {
		r.ResourceNames = []string{name}
	}
	return r
}

// TestOperatorAccess lists what the operator does for the LeaderWorkerSet operand beyond its
// objects (its CR, controllercmd, the optional CRDs, Secrets cert-manager issues) and what it
// must not be able to do. The gateways' access: TestBatchGatewayAccess and
// TestInferenceGatewayAccess.
func TestOperatorAccess(t *testing.T) {
	cluster, inNamespace := operatorRules(t)
	r := func(group, resource, verb, name string) rbacv1.PolicyRule {
		return rule(schema.GroupVersionResource{Group: group, Resource: resource}, verb, name)
	}
	const op = "operator.openshift.io"
	const crds = "customresourcedefinitions"
	const ext = "apiextensions.k8s.io"
	for _, tc := range []struct {
		name    string
		owner   []rbacv1.PolicyRule
		rule    rbacv1.PolicyRule
		allowed bool
	}{
		{"list CRs", cluster, r(op, "leaderworkersetoperators", "list", ""), true},
		{"watch CRs", cluster, r(op, "leaderworkersetoperators", "watch", ""), true},
		{"update the singleton", cluster, r(op, "leaderworkersetoperators", "update", "cluster"), true},
		{"patch the singleton's status", cluster, r(op, "leaderworkersetoperators/status", "patch", "cluster"), true},
		{"update the singleton's finalizers", cluster, r(op, "leaderworkersetoperators/finalizers", "update", "cluster"), true},
		{"update another CR", cluster, r(op, "leaderworkersetoperators", "update", "other"), false},
		{"delete the singleton", cluster, r(op, "leaderworkersetoperators", "delete", "cluster"), false},
		{"watch the cert-manager Certificate CRD", cluster, r(ext, crds, "watch", "certificates.cert-manager.io"), true},
		{"list the ServiceMonitor CRD", cluster, r(ext, crds, "list", "servicemonitors.monitoring.coreos.com"), true},
		{"list every CRD", cluster, r(ext, crds, "list", ""), false},
		{"update another CRD", cluster, r(ext, crds, "update", "certificates.cert-manager.io"), false},
		{"delete any CRD", cluster, r(ext, crds, "delete", ""), false},
		{"update cluster-admin", cluster, r(rbacv1.GroupName, "clusterroles", "update", "cluster-admin"), false},
		{"bind any ClusterRole", cluster, r(rbacv1.GroupName, "clusterroles", "bind", ""), false},
		{"escalate any ClusterRole", cluster, r(rbacv1.GroupName, "clusterroles", "escalate", ""), false},
		{"delete another webhook", cluster, r("admissionregistration.k8s.io", "validatingwebhookconfigurations", "delete", "other"), false},
		{"watch its validating webhook", cluster, r("admissionregistration.k8s.io", "validatingwebhookconfigurations", "watch", "lws-validating-webhook-configuration"), true},
		{"list its mutating webhook", cluster, r("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "list", "lws-mutating-webhook-configuration"), true},
		{"list every webhook configuration", cluster, r("admissionregistration.k8s.io", "validatingwebhookconfigurations", "list", ""), false},
		{"watch every mutating webhook", cluster, r("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "watch", ""), false},
		// Reading Secrets in every namespace is the batch gateway's (TestBatchGatewayAccess);
		// writing them outside its namespace goes no further than create, update and delete.
		{"patch Secrets cluster-wide", cluster, r("", "secrets", "patch", ""), false},
		{"impersonate", cluster, r("", "serviceaccounts", "impersonate", ""), false},
		{"read its Secrets", inNamespace, r("", "secrets", "list", ""), true},
		{"delete issued Secrets", inNamespace, r("", "secrets", "delete", "webhook-server-cert"), true},
		{"leader election", inNamespace, r("coordination.k8s.io", "leases", "update", "llm-infra-operator-lock"), true},
		{"events", inNamespace, r("", "events", "create", ""), true},
		{"find its own pod", inNamespace, r("", "pods", "get", ""), true},
		{"follow its pod's owner", inNamespace, r("apps", "replicasets", "get", ""), true},
		{"apply the operand ConfigMap", inNamespace, r("", "configmaps", "update", "lws-manager-config"), true},
		// No right the operator would only pass on (rights_test.go).
		{"create ClusterRoles", cluster, r(rbacv1.GroupName, "clusterroles", "create", ""), false},
		{"create ClusterRoleBindings", cluster, r(rbacv1.GroupName, "clusterrolebindings", "create", ""), false},
		{"create RoleBindings in its namespace", inNamespace, r(rbacv1.GroupName, "rolebindings", "create", ""), false},
		{"create pods", cluster, r("", "pods", "create", ""), false},
		{"create pods in its namespace", inNamespace, r("", "pods", "create", ""), false},
		{"patch nodes", cluster, r("", "nodes", "patch", ""), false},
		{"create StatefulSets", cluster, r("apps", "statefulsets", "create", ""), false},
		{"update LeaderWorkerSets", cluster, r("leaderworkerset.x-k8s.io", "leaderworkersets", "update", ""), false},
		{"read /metrics", cluster, rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}, false},
		{"manage cert-manager Issuers", inNamespace, r("cert-manager.io", "issuers", "create", ""), true},
		{"update its Issuer", inNamespace, r("cert-manager.io", "issuers", "update", "lws-selfsigned-issuer"), true},
		{"update another Issuer", inNamespace, r("cert-manager.io", "issuers", "update", "other"), false},
		// Listed and watched by name: the informers select the one object (issue 33).
		{"watch its Issuer", inNamespace, r("cert-manager.io", "issuers", "watch", "lws-selfsigned-issuer"), true},
		{"list every Issuer of its namespace", inNamespace, r("cert-manager.io", "issuers", "list", ""), false},
		{"watch OpenShift's APIServer configuration", cluster, r("config.openshift.io", "apiservers", "watch", "cluster"), true},
		{"list every APIServer configuration", cluster, r("config.openshift.io", "apiservers", "list", ""), false},
		{"manage ServiceMonitors", inNamespace, r("monitoring.coreos.com", "servicemonitors", "delete", ""), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			missing := uncovered(tc.owner, tc.rule)
			if tc.allowed && len(missing) > 0 {
				t.Errorf("the operator lacks %v", missing)
			}
			if !tc.allowed && len(missing) == 0 {
				t.Errorf("the operator may %s %v", tc.rule.Verbs, tc.rule)
			}
		})
	}
	// Wildcards would defeat the tests above.
	for _, rl := range inNamespace {
		for _, s := range [][]string{rl.APIGroups, rl.Resources, rl.Verbs, rl.NonResourceURLs} {
			if slices.ContainsFunc(s, func(v string) bool { return strings.Contains(v, "*") }) {
				t.Errorf("wildcard in rule %+v", rl)
			}
		}
	}
}

// ---------------------------------------------------------------------------------------------
// (d) the restricted Pod Security profile

func TestNamespaceIsRestricted(t *testing.T) {
	ns := decodeFile[corev1.Namespace](t, namespaceFile)
	for _, mode := range []string{"enforce", "audit", "warn"} {
		if got := ns.Labels["pod-security.kubernetes.io/"+mode]; got != "restricted" {
			t.Errorf("pod-security.kubernetes.io/%s = %q, want restricted", mode, got)
		}
	}
}

func TestPodsAreRestricted(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec func(t *testing.T) corev1.PodSpec
	}{
		{deploymentFile, func(t *testing.T) corev1.PodSpec {
			return decodeFile[appsv1.Deployment](t, deploymentFile).Spec.Template.Spec
		}},
		{csvFile, func(t *testing.T) corev1.PodSpec {
			deps := readCSV(t).Spec.Install.Spec.Deployments
			if len(deps) != 1 {
				t.Fatalf("%d deployments", len(deps))
			}
			return deps[0].Spec.Template.Spec
		}},
		// The operand runs in the same restricted namespace.
		{bindata.LWSDeployment, func(t *testing.T) corev1.PodSpec {
			return decodeAsset[appsv1.Deployment](t, bindata.LWSDeployment).Spec.Template.Spec
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range restrictedViolations(tc.spec(t)) {
				t.Error(v)
			}
		})
	}
}

// restrictedViolations runs Kubernetes' own restricted Pod Security checks
// (k8s.io/pod-security-admission/policy, what the API server's admission runs in a namespace
// that enforces restricted) over a pod spec.
func restrictedViolations(spec corev1.PodSpec) []string {
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		return []string{err.Error()}
	}
	var v []string
	for _, r := range evaluator.EvaluatePod(psapi.LevelVersion{Level: psapi.LevelRestricted, Version: psapi.LatestVersion()}, &metav1.ObjectMeta{}, &spec) {
		if !r.Allowed {
			v = append(v, r.ForbiddenReason+": "+r.ForbiddenDetail)
		}
	}
	return v
}

// TestOperatorDeployment checks what the operator's binary expects of its Deployment.
func TestOperatorDeployment(t *testing.T) {
	d := decodeFile[appsv1.Deployment](t, deploymentFile)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("replicas = %v, want 1", d.Spec.Replicas)
	}
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err != nil || sel.Empty() ||
		!sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("selector %v does not select the pod labels %v (%v)", d.Spec.Selector, d.Spec.Template.Labels, err)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != serviceAccount {
		t.Errorf("serviceAccountName = %q, want %q", pod.ServiceAccountName, serviceAccount)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.Image != operatorImage {
		t.Errorf("image = %q, want %q", c.Image, operatorImage)
	}
	if want := []string{"llm-infra-operator", "operator"}; !slices.Equal(c.Command, want) {
		t.Errorf("command = %q, want %q", c.Command, want)
	}
	wantEnv := []corev1.EnvVar{
		{Name: operandImageEnv, Value: operandImage(t)},
		{Name: batchgateway.APIServerImageEnv, Value: batchGatewayImages.APIServer},
		{Name: batchgateway.ProcessorImageEnv, Value: batchGatewayImages.Processor},
		{Name: batchgateway.GCImageEnv, Value: batchGatewayImages.GC},
		{Name: batchgateway.AsyncProcessorImageEnv, Value: batchGatewayImages.AsyncProcessor},
		// hack/lib/operator.sh runs the local operator with the same GOGC (make bench's memory
		// figures are the deployed operator's).
		{Name: "GOGC", Value: "50"},
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
	}
	if !apiequality.Semantic.DeepEqual(c.Env, wantEnv) {
		t.Errorf("env = %+v, want %+v", c.Env, wantEnv)
	}
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "10m", corev1.ResourceMemory: "128Mi"} {
		if got := c.Resources.Requests[name]; got.String() != want {
			t.Errorf("requests[%s] = %s, want %s", name, got.String(), want)
		}
	}
	// A memory limit (issue 33), no CPU limit (see the manifest's comment).
	if got := c.Resources.Limits; len(got) != 1 || got.Memory().String() != "512Mi" {
		t.Errorf("limits = %v, want memory 512Mi alone", got)
	}
	for probeName, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.IntValue() != 8443 ||
			p.HTTPGet.Scheme != corev1.URISchemeHTTPS {
			t.Errorf("%s probe = %+v, want HTTPS GET /healthz on 8443", probeName, p)
		}
	}
	// controllercmd writes its self-signed serving certificate to a temporary directory.
	if c.SecurityContext != nil && c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem &&
		!slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/tmp" }) {
		t.Error("read-only root filesystem without a writable /tmp")
	}
}

// ---------------------------------------------------------------------------------------------
// (e) the sample CRs and alm-examples

// TestSampleCR checks every registered kind's example (deploy/examples, Registration.Example):
// one object of the kind, decoded strictly into its Go type, its spec valid, rendered as a sync
// would render it; a namespaced one without a namespace (the user chooses it); and, where the
// kind has one, the check of sampleChecks.
func TestSampleCR(t *testing.T) {
	for _, r := range operands.All() {
		t.Run(r.GVK.Kind, func(t *testing.T) {
			file := examplesDir + "/" + r.Example
			checkRegisteredSample(t, r, file, readFile(t, file))
		})
	}
}

// TestLWSSampleNodePlacement: the LeaderWorkerSetOperator example's commented-out
// nodePlacement must stay valid when uncommented.
func TestLWSSampleNodePlacement(t *testing.T) {
	exampleFile := examplesDir + "/" + registration(t, "LeaderWorkerSetOperator").Example
	var lines []string
	inExample := false
	for _, line := range strings.Split(string(readFile(t, exampleFile)), "\n") {
		if strings.HasPrefix(line, "  # nodePlacement:") {
			inExample = true
		}
		if inExample {
			line = strings.Replace(line, "# ", "", 1)
		}
		lines = append(lines, line)
	}
	if !inExample {
		t.Fatal("no commented-out nodePlacement example")
	}
	withPlacement := &lwsoperatorv1.LeaderWorkerSetOperator{}
	decodeStrict(t, exampleFile+" (nodePlacement uncommented)", []byte(strings.Join(lines, "\n")), withPlacement)
	np := withPlacement.Spec.NodePlacement
	wantToleration := corev1.Toleration{Key: "node-role.kubernetes.io/infra", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	if np == nil || np.NodeSelector["node-role.kubernetes.io/infra"] != "" || len(np.NodeSelector) != 1 ||
		len(np.Tolerations) != 1 || np.Tolerations[0] != wantToleration {
		t.Errorf("nodePlacement example = %+v", np)
	}
}

func registration(t *testing.T, kind string) registry.Registration {
	t.Helper()
	for _, r := range operands.All() {
		if r.GVK.Kind == kind {
			return r
		}
	}
	t.Fatalf("%s is not registered", kind)
	return registry.Registration{}
}

// sampleChecks are what a kind's example must be beyond what every example must be, by kind:
// the singleton's settings, and for the namespaced kinds whose example is upstream's, upstream's
// object (as the golden tests or the admission tables have it) without namespace and uid.
var sampleChecks = map[string]func(t *testing.T, cr runtime.Object){
	"LeaderWorkerSetOperator": func(t *testing.T, cr runtime.Object) {
		checkSample(t, cr.(*lwsoperatorv1.LeaderWorkerSetOperator))
	},
	// The golden CR of upstream's sync sample.
	"LLMBatchGateway": sameAsUpstream("test/golden/batch-gateway/batch_v1alpha1_llmbatchgateway_sync/cr.yaml", nil),
	// The golden CR of upstream's gateway-minimal example.
	"Gateway": sameAsUpstream("test/golden/inference-gateway/gateway-minimal/cr.yaml", nil),
	// Upstream's examples, as the admission tables have them.
	"MCP":          sameAsUpstream("testcases.UpstreamMCP", []byte(igwtestcases.UpstreamMCP)),
	"Agent":        sameAsUpstream("testcases.UpstreamAgent", []byte(igwtestcases.UpstreamAgent)),
	"Orchestrator": sameAsUpstream("testcases.UpstreamOrchestrator", []byte(igwtestcases.UpstreamOrchestrator)),
	"GPU":          sameAsUpstream("testcases.UpstreamGPU", []byte(igwtestcases.UpstreamGPU)),
}

func checkSample(t *testing.T, cr *lwsoperatorv1.LeaderWorkerSetOperator) {
	t.Helper()
	if cr.Name != lwsoperatorv1.SingletonName {
		t.Errorf("name = %q, want %q", cr.Name, lwsoperatorv1.SingletonName)
	}
	if cr.Spec.ManagementState != "Managed" || cr.Spec.LogLevel != "Normal" || cr.Spec.OperatorLogLevel != "Normal" {
		t.Errorf("spec = %+v, want Managed with Normal log levels", cr.Spec.OperatorSpec)
	}
}

// validated is a CR type with the rules its CRD cannot check.
type validated interface {
	ValidateSpec() field.ErrorList
}

// sameAsUpstream requires a sample to be upstream's object (from, a file of the repository when
// raw is nil) without the namespace, which the user chooses, and the uid.
func sameAsUpstream(from string, raw []byte) func(t *testing.T, cr runtime.Object) {
	return func(t *testing.T, cr runtime.Object) {
		t.Helper()
		if raw == nil {
			raw = readFile(t, from)
		}
		want := newCR(t, cr.GetObjectKind().GroupVersionKind())
		decodeStrict(t, from, raw, want)
		m, _ := meta.Accessor(want)
		m.SetNamespace("")
		m.SetUID("")
		if !apiequality.Semantic.DeepEqual(cr, want) {
			got, _ := yaml.Marshal(cr)
			upstream, _ := yaml.Marshal(want)
			t.Errorf("differs from %s without namespace and uid (-upstream +sample):\n%s", from, lineDiff(string(upstream), string(got)))
		}
	}
}

// newCR is an empty object of a registered kind's Go type (the generated clientset's scheme).
func newCR(t *testing.T, gvk schema.GroupVersionKind) runtime.Object {
	t.Helper()
	obj, err := crscheme.Scheme.New(gvk)
	if err != nil {
		t.Fatalf("%s: %v", gvk, err)
	}
	return obj
}

// checkRegisteredSample checks a kind's sample (from what: its file, or alm-examples) and
// returns it decoded.
func checkRegisteredSample(t *testing.T, r registry.Registration, what string, raw []byte) runtime.Object {
	t.Helper()
	cr := newCR(t, r.GVK)
	decodeStrict(t, what, raw, cr)
	if gvk := cr.GetObjectKind().GroupVersionKind(); gvk != r.GVK {
		t.Fatalf("holds a %s, want a %s", gvk, r.GVK)
	}
	m, err := meta.Accessor(cr)
	if err != nil {
		t.Fatal(err)
	}
	if r.Namespaced && m.GetNamespace() != "" {
		t.Errorf("namespace %q: a sample of a namespaced CR is applied with -n", m.GetNamespace())
	}
	if v, ok := cr.(validated); ok {
		if errs := v.ValidateSpec(); len(errs) > 0 {
			t.Errorf("ValidateSpec: %v", errs.ToAggregate())
		}
	}
	u := &unstructured.Unstructured{}
	if u.Object, err = runtime.DefaultUnstructuredConverter.ToUnstructured(cr); err != nil {
		t.Fatal(err)
	}
	if u.GetNamespace() == "" && r.Namespaced {
		u.SetNamespace("example")
	}
	env := registry.RenderEnv{Namespace: namespace, Image: func(env string) string { return "example.com/" + strings.ToLower(env) + ":v1" }}
	if _, err := r.Render(u, env); err != nil {
		t.Errorf("does not render: %v", err)
	}
	if check, ok := sampleChecks[r.GVK.Kind]; ok {
		check(t, cr)
	}
	return cr
}

// TestALMExamples requires one example per owned CRD, each the same object as its sample in
// deploy/examples and checked as it is.
func TestALMExamples(t *testing.T) {
	c := readCSV(t)
	var examples []json.RawMessage
	if err := json.Unmarshal([]byte(c.Metadata.Annotations["alm-examples"]), &examples); err != nil {
		t.Fatalf("alm-examples: %v", err)
	}
	byKind := map[string]json.RawMessage{}
	for i, raw := range examples {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			t.Fatalf("alm-examples[%d]: %v", i, err)
		}
		if _, dup := byKind[tm.Kind]; dup {
			t.Errorf("alm-examples holds two %s", tm.Kind)
		}
		byKind[tm.Kind] = raw
	}
	var owned []string
	for _, o := range c.Spec.CustomResourceDefinitions.Owned {
		owned = append(owned, o.Kind)
	}
	kinds := slices.Sorted(maps.Keys(byKind))
	slices.Sort(owned)
	if !slices.Equal(kinds, owned) {
		t.Fatalf("alm-examples holds %v, want one of each owned kind %v", kinds, owned)
	}
	for _, r := range operands.All() {
		t.Run(r.GVK.Kind, func(t *testing.T) {
			raw, ok := byKind[r.GVK.Kind]
			if !ok {
				t.Fatal("alm-examples holds none")
			}
			example := checkRegisteredSample(t, r, "alm-examples", raw)
			file := examplesDir + "/" + r.Example
			sample := newCR(t, r.GVK)
			decodeStrict(t, file, readFile(t, file), sample)
			checkSameAsSample(t, example, sample, file)
		})
	}
}

func checkSameAsSample(t *testing.T, example, sample any, file string) {
	t.Helper()
	if !apiequality.Semantic.DeepEqual(example, sample) {
		got, _ := yaml.Marshal(example)
		want, _ := yaml.Marshal(sample)
		t.Errorf("alm-examples differs from %s (-%s +alm-examples):\n%s", file, file, lineDiff(string(want), string(got)))
	}
}

// ---------------------------------------------------------------------------------------------
// (f) images, and the rest of the bundle

// TestRelatedImages requires the CSV's relatedImages to be exactly the operator's image and the
// value of every RELATED_IMAGE_* variable of its Deployment, each under the variable's name
// (RELATED_IMAGE_BATCH_GATEWAY_GC -> batch-gateway-gc): image mirroring tools and the
// disconnected feature annotation rely on the list being complete.
func TestRelatedImages(t *testing.T) {
	c := readCSV(t)
	d := decodeFile[appsv1.Deployment](t, deploymentFile)
	container := d.Spec.Template.Spec.Containers[0]
	want := map[string]string{operatorName: container.Image}
	for _, e := range container.Env {
		name, ok := strings.CutPrefix(e.Name, relatedImagePrefix)
		if !ok {
			continue
		}
		if e.Value == "" || e.ValueFrom != nil {
			t.Errorf("%s must hold an image reference", e.Name)
		}
		want[strings.ToLower(strings.ReplaceAll(name, "_", "-"))] = e.Value
	}
	// Every image the operator reads from its environment.
	for _, env := range []string{operandImageEnv, batchgateway.APIServerImageEnv, batchgateway.ProcessorImageEnv, batchgateway.GCImageEnv, batchgateway.AsyncProcessorImageEnv} {
		if !slices.ContainsFunc(container.Env, func(e corev1.EnvVar) bool { return e.Name == env }) {
			t.Errorf("%s does not set %s", deploymentFile, env)
		}
	}
	got := map[string]string{}
	for _, ri := range c.Spec.RelatedImages {
		if _, dup := got[ri.Name]; dup {
			t.Errorf("related image name %q appears twice", ri.Name)
		}
		got[ri.Name] = ri.Image
		if want, ok := want[ri.Name]; ok {
			got[ri.Name] = tagOf(want, ri.Image)
		}
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("relatedImages = %v, want %v (the operator image and each %s* variable)", got, want, relatedImagePrefix)
	}
	if got := tagOf(operatorImage, c.Metadata.Annotations["containerImage"]); got != operatorImage {
		t.Errorf("containerImage = %q, want %q", got, operatorImage)
	}
}

func TestBundle(t *testing.T) {
	c := readCSV(t)

	// Each CRD of the bundle is owned, once, with a name, kind and served version that match.
	owned := c.Spec.CustomResourceDefinitions.Owned
	if len(owned) != len(crdBundleFiles) {
		t.Errorf("%d owned CRDs, want %d (one per CRD in manifests/)", len(owned), len(crdBundleFiles))
	}
	for _, file := range crdBundleFiles {
		crd := decodeFile[apiextensionsv1.CustomResourceDefinition](t, file)
		i := slices.IndexFunc(owned, func(o ownedCRD) bool { return o.Name == crd.Name })
		if i < 0 {
			t.Errorf("%s (%s) is not among the CSV's owned CRDs", crd.Name, file)
			continue
		}
		o := owned[i]
		if o.Kind != crd.Spec.Names.Kind || o.DisplayName == "" || o.Description == "" ||
			!slices.ContainsFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == o.Version && v.Served }) {
			t.Errorf("owned CRD %+v does not match %s (%s %s)", o, file, crd.Name, crd.Spec.Names.Kind)
		}
	}
	if c.Spec.MinKubeVersion != "1.30.0" {
		t.Errorf("minKubeVersion = %q", c.Spec.MinKubeVersion)
	}
	if !strings.HasSuffix(c.Metadata.Name, ".v"+c.Spec.Version) || !strings.HasPrefix(c.Metadata.Name, operatorName+".") {
		t.Errorf("CSV name %q does not match package %s and version %s", c.Metadata.Name, operatorName, c.Spec.Version)
	}
	if c.Spec.DisplayName == "" || c.Spec.Description == "" || len(c.Spec.Keywords) == 0 || len(c.Spec.Maintainers) == 0 ||
		c.Spec.Provider.Name == "" || len(c.Spec.Links) == 0 {
		t.Error("displayName, description, keywords, maintainers, provider and links must be set")
	}
	modes := map[string]bool{}
	for _, m := range c.Spec.InstallModes {
		modes[m.Type] = m.Supported
	}
	// AllNamespaces: the operator watches LLMBatchGateways in every namespace.
	if want := map[string]bool{"OwnNamespace": false, "SingleNamespace": false, "MultiNamespace": false, "AllNamespaces": true}; !apiequality.Semantic.DeepEqual(modes, want) {
		t.Errorf("installModes = %v, want %v", modes, want)
	}

	// registry+v1: a flat manifests/ directory with at least these files. Every other object of
	// deploy/ a bundle can carry is a file too: hack/bundlegen's TestCommittedBundleIsCurrent
	// requires manifests/ to be exactly what make bundle writes.
	entries, err := os.ReadDir(filepath.Join(root, "manifests"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("manifests/%s is a directory", e.Name())
		}
		names = append(names, e.Name())
	}
	bundleFiles := []string{filepath.Base(csvFile)}
	for _, file := range append(slices.Clone(crdBundleFiles), userRoleBundleFiles(t)...) {
		bundleFiles = append(bundleFiles, filepath.Base(file))
	}
	for _, f := range bundleFiles {
		if !slices.Contains(names, f) {
			t.Errorf("manifests/ holds %v, without %s", names, f)
		}
	}

	var annotations struct {
		Annotations map[string]string `json:"annotations"`
	}
	decodeStrict(t, annotationsFile, readFile(t, annotationsFile), &annotations)
	want := map[string]string{
		"operators.operatorframework.io.bundle.mediatype.v1":       "registry+v1",
		"operators.operatorframework.io.bundle.manifests.v1":       "manifests/",
		"operators.operatorframework.io.bundle.metadata.v1":        "metadata/",
		"operators.operatorframework.io.bundle.package.v1":         operatorName,
		"operators.operatorframework.io.bundle.channels.v1":        "stable",
		"operators.operatorframework.io.bundle.channel.default.v1": "stable",
		// OpenShift 4.17 and later: 4.17 ships Kubernetes 1.30, the CSV's minKubeVersion.
		"com.redhat.openshift.versions": "v4.17",
	}
	if !apiequality.Semantic.DeepEqual(annotations.Annotations, want) {
		t.Errorf("%s = %v, want %v", annotationsFile, annotations.Annotations, want)
	}
}
