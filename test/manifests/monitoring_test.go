package manifests

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// Platform monitoring on OpenShift: deploy/11_metrics-service.yaml, 12_prometheus-rbac.yaml and
// deploy/monitoring/ (ServiceMonitor, PrometheusRule; applied only where their CRDs exist).
const (
	metricsServiceFile  = "deploy/11_metrics-service.yaml"
	prometheusRBACFile  = "deploy/12_prometheus-rbac.yaml"
	serviceMonitorFile  = "deploy/monitoring/servicemonitor.yaml"
	prometheusRuleFile  = "deploy/monitoring/prometheusrule.yaml"
	servingCertAnnot    = "service.beta.openshift.io/serving-cert-secret-name"
	clusterMonitoring   = "openshift.io/cluster-monitoring"
	prometheusSA        = "prometheus-k8s"
	monitoringNamespace = "openshift-monitoring"
	// servingCertDir is where controllercmd looks for a serving certificate before it makes a
	// self-signed one (library-go controllercmd.AddDefaultRotationToConfig).
	servingCertDir = "/var/run/secrets/serving-cert"
	// serviceCAConfigMap is the ConfigMap OpenShift publishes in every namespace with the
	// service CA's bundle.
	serviceCAConfigMap = "openshift-service-ca.crt"
	serviceCAKey       = "service-ca.crt"
)

// The Prometheus operator's kinds, as far as deploy/monitoring uses them (its Go API is not a
// dependency). Decoded strictly: a field these structs do not know fails the test.
type serviceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector  metav1.LabelSelector `json:"selector"`
		Endpoints []struct {
			Port            string `json:"port"`
			Scheme          string `json:"scheme"`
			Path            string `json:"path"`
			Interval        string `json:"interval"`
			BearerTokenFile string `json:"bearerTokenFile"`
			TLSConfig       struct {
				ServerName string `json:"serverName"`
				CA         struct {
					ConfigMap *corev1.ConfigMapKeySelector `json:"configMap"`
				} `json:"ca"`
			} `json:"tlsConfig"`
		} `json:"endpoints"`
	} `json:"spec"`
}

type prometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert       string            `json:"alert"`
				Expr        string            `json:"expr"`
				For         string            `json:"for"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// TestOperatorMetricsScrapedWithVerifiedTLS follows the platform Prometheus from the namespace
// to the operator's certificate: each link is what the next one relies on.
func TestOperatorMetricsScrapedWithVerifiedTLS(t *testing.T) {
	ns := decodeFile[corev1.Namespace](t, namespaceFile)
	if ns.Labels[clusterMonitoring] != "true" {
		t.Errorf("namespace label %s = %q, want \"true\": the platform Prometheus ignores the namespace otherwise", clusterMonitoring, ns.Labels[clusterMonitoring])
	}
	svc := decodeFile[corev1.Service](t, metricsServiceFile)
	deployment := decodeFile[appsv1.Deployment](t, deploymentFile)
	sm := decodeFile[serviceMonitor](t, serviceMonitorFile)
	pod := deployment.Spec.Template

	t.Run("the Service selects the operator's pod and port", func(t *testing.T) {
		if svc.Namespace != namespace || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) || len(svc.Spec.Selector) == 0 {
			t.Errorf("Service %s/%s selects %v, the operator's pod has %v", svc.Namespace, svc.Name, svc.Spec.Selector, pod.Labels)
		}
		if len(svc.Spec.Ports) != 1 || !slices.ContainsFunc(pod.Spec.Containers[0].Ports, func(p corev1.ContainerPort) bool {
			return p.Name == svc.Spec.Ports[0].TargetPort.String() && p.ContainerPort == 8443
		}) {
			t.Errorf("Service ports %+v do not target the container port 8443 by its name", svc.Spec.Ports)
		}
	})
	secret := svc.Annotations[servingCertAnnot]
	t.Run("the service CA's certificate is mounted where controllercmd looks", func(t *testing.T) {
		if secret == "" {
			t.Fatalf("the Service lacks %s: OpenShift would issue no certificate", servingCertAnnot)
		}
		vol := slices.IndexFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == secret })
		if vol < 0 {
			t.Fatalf("no volume of the Secret %s", secret)
		}
		// Optional: on a cluster without the service CA the pod must still start (self-signed).
		if v := pod.Spec.Volumes[vol]; v.Secret.Optional == nil || !*v.Secret.Optional {
			t.Errorf("volume %s is not optional: the operator would not start without the service CA", v.Name)
		}
		mounts := pod.Spec.Containers[0].VolumeMounts
		if !slices.ContainsFunc(mounts, func(m corev1.VolumeMount) bool {
			return m.Name == pod.Spec.Volumes[vol].Name && m.MountPath == servingCertDir && m.ReadOnly
		}) {
			t.Errorf("volume %s is not mounted read-only at %s: %+v", pod.Spec.Volumes[vol].Name, servingCertDir, mounts)
		}
	})
	t.Run("the ServiceMonitor verifies the certificate and authenticates", func(t *testing.T) {
		sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(svc.Labels)) || sm.Namespace != svc.Namespace {
			t.Errorf("the ServiceMonitor selects %v (%v), the Service has %v", sm.Spec.Selector, err, svc.Labels)
		}
		// Only the metrics Service: the selector must not also pick another Service of the namespace.
		if sel.Matches(labels.Set(pod.Labels)) {
			t.Errorf("the ServiceMonitor's selector %v matches the pod's labels alone; select the metrics Service's own label", sm.Spec.Selector)
		}
		if len(sm.Spec.Endpoints) != 1 {
			t.Fatalf("%d endpoints, want 1", len(sm.Spec.Endpoints))
		}
		ep := sm.Spec.Endpoints[0]
		if ep.Port != svc.Spec.Ports[0].Name || ep.Scheme != "https" || ep.Path != "/metrics" {
			t.Errorf("endpoint %s %s %s, want port %s https /metrics", ep.Port, ep.Scheme, ep.Path, svc.Spec.Ports[0].Name)
		}
		if want := fmt.Sprintf("%s.%s.svc", svc.Name, svc.Namespace); ep.TLSConfig.ServerName != want {
			t.Errorf("serverName = %q, want the Service's DNS name %q (the name the service CA certifies)", ep.TLSConfig.ServerName, want)
		}
		if ca := ep.TLSConfig.CA.ConfigMap; ca == nil || ca.Name != serviceCAConfigMap || ca.Key != serviceCAKey {
			t.Errorf("tlsConfig.ca = %+v, want ConfigMap %s key %s", ca, serviceCAConfigMap, serviceCAKey)
		}
		if ep.BearerTokenFile == "" {
			t.Error("no bearer token: the operator's /metrics refuses anonymous scrapes")
		}
	})
}

// TestPrometheusMayDiscoverTargets: the platform Prometheus needs to read the namespace's
// Services, endpoints and pods to find what the ServiceMonitors select.
func TestPrometheusMayDiscoverTargets(t *testing.T) {
	docs := documents(t, prometheusRBACFile, readFile(t, prometheusRBACFile))
	if len(docs) != 2 {
		t.Fatalf("%d objects, want a Role and a RoleBinding", len(docs))
	}
	role, binding := &rbacv1.Role{}, &rbacv1.RoleBinding{}
	decodeStrict(t, prometheusRBACFile, docs[0].raw, role)
	decodeStrict(t, prometheusRBACFile, docs[1].raw, binding)
	if want := (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}); binding.RoleRef != want || binding.Namespace != role.Namespace || role.Namespace != namespace {
		t.Errorf("RoleBinding %s/%s refers to %+v, want %+v in %s", binding.Namespace, binding.Name, binding.RoleRef, want, namespace)
	}
	for _, tc := range []struct {
		gvr     schema.GroupVersionResource
		verb    string
		allowed bool
	}{
		{schema.GroupVersionResource{Resource: "services"}, "list", true},
		{schema.GroupVersionResource{Resource: "endpoints"}, "watch", true},
		{schema.GroupVersionResource{Resource: "pods"}, "get", true},
		{schema.GroupVersionResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "list", true},
		{schema.GroupVersionResource{Resource: "secrets"}, "get", false},
		{schema.GroupVersionResource{Resource: "services"}, "update", false},
	} {
		missing := uncovered(role.Rules, rule(tc.gvr, tc.verb, ""))
		if tc.allowed && len(missing) > 0 {
			t.Errorf("Prometheus lacks %v", missing)
		}
		if !tc.allowed && len(missing) == 0 {
			t.Errorf("Prometheus may %s %s", tc.verb, tc.gvr.GroupResource())
		}
	}
}

// promQLWord is an identifier in a PromQL expression: a metric, function, keyword or label.
var promQLWord = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)

// promQLNotMetric strips what is not a metric name: strings, label matchers, ranges, numbers
// (and durations), and the label lists of by, without, on, ignoring, group_left and group_right.
var promQLNotMetric = []*regexp.Regexp{
	regexp.MustCompile(`"(\\.|[^"\\])*"`),
	regexp.MustCompile(`\{[^}]*\}`),
	regexp.MustCompile(`\[[^\]]*\]`),
	regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`),
	regexp.MustCompile(`\b[0-9][0-9.eE+-]*[a-z]*\b`),
}

// promQLBuiltins are the functions and keywords the rules may use.
var promQLBuiltins = []string{"sum", "max", "min", "avg", "count", "rate", "irate", "increase", "and", "or", "unless", "bool", "absent", "clamp_min", "clamp_max", "histogram_quantile"}

// metricsIn returns the metric names a PromQL expression selects and the words it does not
// know. Not a PromQL parser (the one of github.com/prometheus/prometheus would be the
// operator's largest dependency, for a test): enough for the rules' plain expressions, and a
// word it cannot place fails the test rather than passing unchecked.
func metricsIn(expr string) []string {
	for _, re := range promQLNotMetric {
		expr = re.ReplaceAllString(expr, " ")
	}
	var out []string
	for _, w := range promQLWord.FindAllString(expr, -1) {
		if !slices.Contains(promQLBuiltins, w) {
			out = append(out, w)
		}
	}
	return out
}

func TestMetricsInExpressions(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`max by (namespace, operand) (llm_infra_operator_degraded) == 1`, []string{"llm_infra_operator_degraded"}},
		{`sum(rate(a_total{result="error", x=~"a|b"}[15m])) / sum(rate(b_total[5m])) > 0.2`, []string{"a_total", "b_total"}},
		{`histogram_quantile(0.99, sum by (le) (rate(c_bucket[1h])))`, []string{"c_bucket"}},
		{`a * on (x) group_left (y) b > 1e3`, []string{"a", "b"}},
	} {
		if got := metricsIn(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("metricsIn(%q) = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// TestAlertRules: every alert is complete and its expression selects only metrics the operator
// registers, so renaming a metric breaks this test, not the alert in production.
func TestAlertRules(t *testing.T) {
	rule := decodeFile[prometheusRule](t, prometheusRuleFile)
	if rule.Namespace != namespace {
		t.Errorf("namespace %q, want %q", rule.Namespace, namespace)
	}
	registered := engine.MetricNames()
	var alerts []string
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			t.Run(r.Alert, func(t *testing.T) {
				if r.Alert == "" || r.Expr == "" || r.For == "" {
					t.Errorf("alert %q: expr %q, for %q: all three are needed", r.Alert, r.Expr, r.For)
				}
				if s := r.Labels["severity"]; !slices.Contains([]string{"info", "warning", "critical"}, s) {
					t.Errorf("severity %q, want info, warning or critical", s)
				}
				for _, a := range []string{"summary", "description"} {
					if len(strings.TrimSpace(r.Annotations[a])) < 20 {
						t.Errorf("annotation %s is missing or too short to help: %q", a, r.Annotations[a])
					}
				}
				if !strings.Contains(r.Annotations["description"], "To investigate") {
					t.Error("the description does not say how to investigate")
				}
				metrics := metricsIn(r.Expr)
				if len(metrics) == 0 {
					t.Errorf("%q selects no metric", r.Expr)
				}
				for _, m := range metrics {
					if !slices.Contains(registered, m) {
						t.Errorf("%q selects %s, which the operator does not register (it has %v)", r.Expr, m, registered)
					}
				}
				// namespace, the operator's, is the target label OpenShift routes platform alerts by.
				if !strings.Contains(r.Expr, "by (namespace,") {
					t.Errorf("%q does not keep the namespace label", r.Expr)
				}
			})
		}
	}
	// The alerts issue 11 asks for: a Degraded operand and a sync error rate.
	for _, want := range []string{"LLMInfraOperandDegraded", "LLMInfraOperatorSyncErrors"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("no alert %s among %v", want, alerts)
		}
	}
}
