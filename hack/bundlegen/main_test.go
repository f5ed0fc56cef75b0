package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

const repoRoot = "../.."

// defaults are hack/bundle.sh's settings without a release's digests.
func defaults(root string) options {
	return options{
		root: root, base: "hack/bundle/csv-base.yaml", icon: "hack/bundle/icon.svg",
		deployDir: "deploy", examplesDir: "deploy/examples",
		channels: "stable", defaultChannel: "stable", openshiftVersions: "v4.17",
	}
}

// TestCommittedBundleIsCurrent: the committed bundle is what make bundle writes now (make verify
// checks the same; this makes make test say it too).
func TestCommittedBundleIsCurrent(t *testing.T) {
	files, err := build(defaults(repoRoot))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(repoRoot, name))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s is not current (%v): run make bundle", name, err)
		}
	}
	for _, dir := range []string{"manifests", "metadata"} {
		entries, err := os.ReadDir(filepath.Join(repoRoot, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if _, ok := files[dir+"/"+e.Name()]; !ok {
				t.Errorf("%s/%s is not part of the bundle: run make bundle", dir, e.Name())
			}
		}
	}
}

// fixture copies what bundlegen reads into a temporary root and adds extra to deploy/.
func fixture(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for _, dir := range []string{"deploy", "hack/bundle"} {
		if err := os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(repoRoot, dir))); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range extra {
		if err := os.WriteFile(filepath.Join(root, "deploy", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readCSV(t *testing.T, files map[string][]byte) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	if err := yaml.UnmarshalStrict(files["manifests/llm-infra-operator.clusterserviceversion.yaml"], csv); err != nil {
		t.Fatal(err)
	}
	return csv
}

// monitoring is what a change may add to deploy/ (names of its own, beside the real objects): a metrics Service, a ServiceMonitor,
// a PrometheusRule, a Role and RoleBinding for Prometheus in the operator's namespace, a
// ClusterRole for the operator bound to its ServiceAccount, and a namespace label.
const monitoring = `apiVersion: v1
kind: Service
metadata:
  name: example-metrics
  namespace: openshift-llm-infra-operator
spec:
  ports:
  - name: https
    port: 8443
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: example
  namespace: openshift-llm-infra-operator
spec:
  endpoints:
  - port: https
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: example
  namespace: openshift-llm-infra-operator
spec:
  groups: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: prometheus-k8s
  namespace: openshift-llm-infra-operator
rules:
- apiGroups: [""]
  resources: [services, endpoints, pods]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: prometheus-k8s
  namespace: openshift-llm-infra-operator
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: prometheus-k8s
subjects:
- kind: ServiceAccount
  name: prometheus-k8s
  namespace: openshift-monitoring
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: llm-infra-operator-tls
rules:
- apiGroups: [config.openshift.io]
  resources: [apiservers]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: llm-infra-operator-tls
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: llm-infra-operator-tls
subjects:
- kind: ServiceAccount
  name: llm-infra-operator
  namespace: openshift-llm-infra-operator
`

func TestDeployAdditionsLandInTheBundle(t *testing.T) {
	root := fixture(t, map[string]string{"11_monitoring.yaml": monitoring, "01_namespace.yaml": `apiVersion: v1
kind: Namespace
metadata:
  name: openshift-llm-infra-operator
  labels:
    openshift.io/cluster-monitoring: "true"
    pod-security.kubernetes.io/enforce: restricted
`})
	files, err := build(defaults(root))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"manifests/example-metrics_v1_service.yaml",
		"manifests/example_monitoring.coreos.com_v1_servicemonitor.yaml",
		"manifests/example_monitoring.coreos.com_v1_prometheusrule.yaml",
		"manifests/prometheus-k8s_rbac.authorization.k8s.io_v1_role.yaml",
		"manifests/prometheus-k8s_rbac.authorization.k8s.io_v1_rolebinding.yaml",
	} {
		data, ok := files[name]
		if !ok {
			t.Errorf("no %s among %v", name, slices.Sorted(maps.Keys(files)))
			continue
		}
		// OLM creates namespaced objects in the install namespace.
		if strings.Contains(string(data), "namespace: openshift-llm-infra-operator\n  name") || strings.Contains(string(data), "\n  namespace: openshift-llm-infra-operator") {
			t.Errorf("%s keeps metadata.namespace:\n%s", name, data)
		}
	}
	// The operator's own ClusterRole goes into clusterPermissions, not into a file.
	if _, ok := files["manifests/llm-infra-operator-tls_rbac.authorization.k8s.io_v1_clusterrole.yaml"]; ok {
		t.Error("a ClusterRole bound to the operator became a bundle file")
	}
	csv := readCSV(t, files)
	if csv.Annotations[clusterMonitoringAnnotation] != "true" || !strings.Contains(csv.Annotations[suggestedTemplateAnnotation], `"openshift.io/cluster-monitoring":"true"`) {
		t.Errorf("the namespace's cluster-monitoring label did not reach the CSV: %v", csv.Annotations)
	}
	perms := csv.Spec.InstallStrategy.StrategySpec.ClusterPermissions
	if len(perms) == 0 || perms[0].ServiceAccountName != "llm-infra-operator" ||
		!slices.ContainsFunc(perms[0].Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, "apiservers") }) {
		t.Errorf("the operator's clusterPermissions lack the added ClusterRole's rule: %+v", perms)
	}
}

// TestOperandServiceAccountsGetPermissions: a ServiceAccount of the operator's namespace that
// deploy/ binds (the LWS controller's) gets entries of its own in clusterPermissions and
// permissions, which OLM creates with the ServiceAccount in the install namespace; neither the
// ServiceAccount nor its bound roles become files, and a role nobody binds does.
func TestOperandServiceAccountsGetPermissions(t *testing.T) {
	files, err := build(defaults(fixture(t, nil)))
	if err != nil {
		t.Fatal(err)
	}
	spec := readCSV(t, files).Spec.InstallStrategy.StrategySpec
	for _, tc := range []struct {
		name     string
		perms    []operatorsv1alpha1.StrategyDeploymentPermissions
		resource string
	}{
		{"clusterPermissions", spec.ClusterPermissions, "leaderworkersets"},
		{"clusterPermissions", spec.ClusterPermissions, "tokenreviews"},
		{"permissions", spec.Permissions, "leases"},
	} {
		var accounts []string
		for _, p := range tc.perms {
			accounts = append(accounts, p.ServiceAccountName)
		}
		if !slices.Equal(accounts, []string{"llm-infra-operator", "lws-controller-manager"}) {
			t.Fatalf("%s are for %v, want the operator's ServiceAccount, then the operand's", tc.name, accounts)
		}
		if !slices.ContainsFunc(tc.perms[1].Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, tc.resource) }) {
			t.Errorf("%s of lws-controller-manager lack %s: %+v", tc.name, tc.resource, tc.perms[1].Rules)
		}
	}
	for _, name := range []string{
		"manifests/lws-controller-manager_v1_serviceaccount.yaml",
		"manifests/lws-manager-role_rbac.authorization.k8s.io_v1_clusterrole.yaml",
		"manifests/lws-manager-rolebinding_rbac.authorization.k8s.io_v1_clusterrolebinding.yaml",
		"manifests/lws-leader-election-role_rbac.authorization.k8s.io_v1_role.yaml",
	} {
		if _, ok := files[name]; ok {
			t.Errorf("%s became a bundle file: OLM makes it from the install strategy", name)
		}
	}
	if _, ok := files["manifests/lws-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml"]; !ok {
		t.Error("the ClusterRole lws-metrics-reader, which nothing binds, is not a bundle file")
	}
}

func TestObjectsABundleCannotCarry(t *testing.T) {
	for name, extra := range map[string]string{
		"a RoleBinding in another namespace": `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: x
  namespace: openshift-monitoring
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: x}
subjects: [{kind: ServiceAccount, name: x, namespace: openshift-monitoring}]
`,
		"a kind OLM does not install": `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: x
  namespace: openshift-llm-infra-operator
spec: {podSelector: {}}
`,
		"a binding of the operator to an unknown ClusterRole": `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: x
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: not-defined}
subjects: [{kind: ServiceAccount, name: llm-infra-operator, namespace: openshift-llm-infra-operator}]
`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := build(defaults(fixture(t, map[string]string{"99_extra.yaml": extra}))); err == nil {
				t.Error("built a bundle without it, and without a reason")
			} else {
				t.Log(err)
			}
		})
	}
}

func TestImagePinning(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	images := []string{
		"quay.io/llm-infra/llm-infra-operator:latest",
		"registry.k8s.io/lws/lws:v0.10.0",
		"quay.io/opendatahub/odh-llm-d-batch-gateway-apiserver:odh-stable",
		"quay.io/opendatahub/odh-llm-d-batch-gateway-processor:odh-stable",
		"quay.io/opendatahub/odh-llm-d-batch-gateway-gc:odh-stable",
		"quay.io/opendatahub/odh-llm-d-async:odh-stable",
	}
	for _, tc := range []struct {
		name         string
		pinned       []string
		require      bool
		wantErr      bool
		disconnected string
	}{
		{name: "none", disconnected: "false"},
		{name: "some", pinned: images[:2], disconnected: "false"},
		{name: "some, a release", pinned: images[:2], require: true, wantErr: true},
		{name: "all", pinned: images, require: true, disconnected: "true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := fixture(t, nil)
			o := defaults(root)
			o.requireDigests = tc.require
			o.digestsFile = filepath.Join(root, "digests")
			var lines []string
			for _, image := range tc.pinned {
				lines = append(lines, image+" "+digest)
			}
			if err := os.WriteFile(o.digestsFile, []byte("# test\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := build(o)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want an error: %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			csv := readCSV(t, files)
			if got := csv.Annotations[disconnectedAnnotation]; got != tc.disconnected {
				t.Errorf("disconnected = %q, want %q", got, tc.disconnected)
			}
			related := map[string]bool{}
			for _, ri := range csv.Spec.RelatedImages {
				related[ri.Image] = true
			}
			container := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec.Containers[0]
			for _, image := range tc.pinned {
				repo := image[:strings.LastIndex(image, ":")]
				if !related[repo+"@"+digest] {
					t.Errorf("relatedImages lack %s@%s: %v", repo, digest, related)
				}
				if related[image] {
					t.Errorf("relatedImages still have %s", image)
				}
				if !strings.Contains(container.Image, repo+"@") && !slices.ContainsFunc(container.Env, func(e corev1.EnvVar) bool { return e.Value == repo+"@"+digest }) {
					t.Errorf("the Deployment does not refer to %s by digest", repo)
				}
			}
		})
	}
}

// TestANewCRDIsOwned: a CRD of deploy/ that csv-base.yaml does not describe (a new kind) is an
// owned CRD of the CSV with a skeleton of descriptors, after the described ones; a described
// CRD's name and version come from deploy/.
func TestANewCRDIsOwned(t *testing.T) {
	root := fixture(t, map[string]string{"00_example.com_widgetpools.crd.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgetpools.example.com
spec:
  group: example.com
  names: {kind: WidgetPool, listKind: WidgetPoolList, plural: widgetpools, singular: widgetpool}
  scope: Namespaced
  versions:
  - name: v1beta1
    served: true
    storage: false
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: WidgetPool runs widgets.
        type: object
        properties:
          spec:
            type: object
            required: [replicas]
            properties:
              replicas: {type: integer, description: How many widgets.}
              modelURL: {type: string}
          status:
            type: object
            properties:
              conditions: {type: array, items: {type: object}, description: Available and Degraded.}
`})
	files, err := build(defaults(root))
	if err != nil {
		t.Fatal(err)
	}
	owned := readCSV(t, files).Spec.CustomResourceDefinitions.Owned
	last := owned[len(owned)-1]
	if last.Name != "widgetpools.example.com" || last.Version != "v1" || last.Kind != "WidgetPool" || last.DisplayName != "Widget Pool" ||
		last.Description != "WidgetPool runs widgets." {
		t.Errorf("the new CRD's entry: %+v", last)
	}
	if len(last.SpecDescriptors) != 1 || last.SpecDescriptors[0].Path != "replicas" || last.SpecDescriptors[0].Description != "How many widgets." ||
		len(last.StatusDescriptors) != 1 || last.StatusDescriptors[0].Path != "conditions" || last.StatusDescriptors[0].Description != "Available and Degraded." {
		t.Errorf("the new CRD's descriptors: %+v %+v", last.SpecDescriptors, last.StatusDescriptors)
	}
	if owned[0].Name != "leaderworkersetoperators.operator.openshift.io" || owned[0].Version != "v1" {
		t.Errorf("the first described CRD: %s %s", owned[0].Name, owned[0].Version)
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{"LLMBatchGateway": "LLM Batch Gateway", "GPU": "GPU", "MCP": "MCP", "ModelURL": "Model URL", "Agent": "Agent"} {
		if got := words(in); got != want {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}
