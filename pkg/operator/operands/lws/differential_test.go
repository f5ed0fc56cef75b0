package lws

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"

	"github.com/llm-infra/llm-infra-operator/pkg/apis/crdtest"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
	"github.com/llm-infra/llm-infra-operator/test/differential"
)

// The differential test renders LeaderWorkerSetOperators generated from this operator's CRD
// schema (managementState, logLevel, operatorLogLevel, nodePlacement, certificates,
// networkPolicy, ...; always named cluster) two ways: with openshift/lws-operator's own
// target-config reconciler (hack/tools/lwsrender: upstream's code, unchanged, on client-go's
// fakes, synced until a pass changes nothing) and with this operator's sync on the fakes of
// harness_test.go, synced likewise. Both run on the same cluster: cert-manager and the Prometheus
// operator installed, cert-manager issuing each Certificate's Secret between two syncs, the
// operand in testNamespace running testImage (both renderers take the namespace and the image
// as parameters, so neither needs mapping). Upstream's CRD does not know spec.certificates and
// spec.networkPolicy: it is given the CR as its API server stores it, without them.
//
// Every field of every object, and the CR's status (conditions keyed by type), is compared:
// each difference must be one of lwsDifferences below (a predicate over the CR, with the reason
// of docs/differences-from-upstream.md), or the test fails and prints the smallest CR that
// shows it; every intended difference must match at least once (the full form fails, the short
// form reports). DIFFERENTIAL_CRS sets how many distinct CRs, DIFFERENTIAL_SEED the seed
// (test/differential.Size).

// lwsCR is a generated CR as this operator stores it (typed) and as upstream's CRD stores it.
type lwsCR struct {
	ours   *lwsoperatorv1.LeaderWorkerSetOperator
	theirs map[string]any
}

// managed: upstream's reconciler renders only for Managed (or an unset state).
func (cr lwsCR) upstreamManaged() bool {
	state := cr.ours.Spec.ManagementState
	return state == operatorv1.Managed || state == ""
}

// oursManaged: this operator applies its objects for Managed and Force.
func (cr lwsCR) oursManaged() bool {
	state := cr.ours.Spec.ManagementState
	return state == operatorv1.Managed || state == operatorv1.Force
}

func (cr lwsCR) source() lwsoperatorv1.CertificateSource {
	return cr.ours.Spec.Certificates.SourceOrDefault()
}

// certManager: the certificates come from cert-manager, as upstream's always do (Automatic
// picks cert-manager on this cluster).
func (cr lwsCR) certManager() bool {
	s := cr.source()
	return s == lwsoperatorv1.CertificateSourceAutomatic || s == lwsoperatorv1.CertificateSourceCertManager
}

// lwsDifference is an intended difference: which CRs and which differences it covers, and why.
type lwsDifference struct {
	says    string
	matches func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool
	reason  string
}

func (d lwsDifference) String() string { return fmt.Sprintf("%s (%s)", d.says, d.reason) }

// statusKind keys the CR's status among the objects compared.
const statusKind = "LeaderWorkerSetOperatorStatus"

// onlyUpstream and onlyOurs: d is a whole object only that side has.
func onlyUpstream(o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
	return o.OneSided && d.Path == "" && d.Ours == enginetest.Absent
}

func onlyOurs(o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
	return o.OneSided && d.Path == "" && d.Golden == enginetest.Absent
}

var rbacKinds = []string{"ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "ServiceAccount"}

// pathIn: d is of kind's object (any kind for "") at a path matching pattern.
func pathIn(o enginetest.GoldenObject, d enginetest.FieldDiff, kind string, pattern *regexp.Regexp) bool {
	return !o.OneSided && (kind == "" || o.Kind == kind) && pattern.MatchString(d.Path)
}

var (
	objectLabels     = regexp.MustCompile(`^(metadata\.labels|spec\.template\.metadata\.labels|spec\.secretTemplate\.labels)\["app\.kubernetes\.io/(component|created-by|instance|managed-by|part-of|name)"\]$`)
	instanceSelector = regexp.MustCompile(`^(spec\.selector\.matchLabels|spec\.selector)\["app\.kubernetes\.io/(instance|name)"\]$`)
	ownerController  = regexp.MustCompile(`^metadata\.ownerReferences\[0\]\.controller$`)
	crdOwner         = regexp.MustCompile(`^metadata\.ownerReferences\[0\]\.(apiVersion|kind|name|uid)$`)
	specHash         = regexp.MustCompile(`^metadata\.annotations\["operator\.openshift\.io/spec-hash"\]$`)
	rolloutTriggers  = regexp.MustCompile(`^spec\.template\.metadata\.annotations\["(secrets/[a-z-]+|configmaps/[a-z-]+|operator\.llm-infra\.io/hash-[a-z-]+)"\]$`)
	zapLogLevel      = regexp.MustCompile(`^spec\.template\.spec\.containers\[0\]\.args\[1\]$`)
	metricsCertItems = regexp.MustCompile(`^spec\.template\.spec\.volumes\[2\]\.secret\.(items\[[0-9]\]\.(key|path)|optional)$`)
	operandHardening = regexp.MustCompile(`^spec\.template\.spec\.(securityContext\.seccompProfile\.type|containers\[0\]\.volumeMounts\[0\]\.readOnly)$`)
	controllerGen    = regexp.MustCompile(`^metadata\.annotations\["controller-gen\.kubebuilder\.io/version"\]$`)
	monitorClientTLS = regexp.MustCompile(`^spec\.endpoints\[0\]\.(tlsConfig\.(certFile|keyFile)|bearerTokenFile)$`)
	monitorServer    = regexp.MustCompile(`^spec\.endpoints\[0\]\.tlsConfig\.serverName$`)
	monitorCA        = regexp.MustCompile(`^spec\.endpoints\[0\]\.tlsConfig\.ca\.(secret|configMap)\.(name|key)$`)
	caInjection      = regexp.MustCompile(`^(metadata\.annotations\["cert-manager\.io/inject-ca-from"\]|webhooks\[".+"\]\.clientConfig\.caBundle|spec\.conversion\.webhook\.clientConfig\.caBundle)$`)
	// ownStatusFields: what the operator writes into the status where upstream wrote nothing.
	ownStatusFields = regexp.MustCompile(`^(observedGeneration|conditions\.(Available|Degraded|Progressing|ServingCertificates)\.(status|reason|message))$`)
	// rewordedStatusFields: what both write and may say differently (every other field both
	// write, the conditions' status and reason among them, must agree).
	rewordedStatusFields = regexp.MustCompile(`^(conditions\.Available\.message|generations\[[0-9]+\]\.lastGeneration)$`)
	controllerConfig     = regexp.MustCompile(`^data\["controller_manager_config\.yaml"\]$`)
)

// sameState: both sides apply their objects (Managed).
func (cr lwsCR) bothManaged() bool { return cr.upstreamManaged() && cr.oursManaged() }

var lwsDifferences = []lwsDifference{
	{"managed: the controller's ClusterRoles, ClusterRoleBindings, Roles, RoleBindings and ServiceAccount only upstream's", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.upstreamManaged() && onlyUpstream(o, d) && slices.Contains(rbacKinds, o.Kind)
	}, "the controller's RBAC and ServiceAccount are installed with the operator (deploy/13_lws-manager-role.yaml, deploy/14_lws-operand-rbac.yaml), so the operator holds no right it only passes on"},
	{"managed: the CRDs carry no owner reference", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "CustomResourceDefinition", crdOwner)
	}, "garbage collection of a CRD after the CR is deleted would delete every user's LeaderWorkerSet and DisaggregatedSet with it"},
	{"managed: labels app.kubernetes.io/* of objects, pod templates and the certificates' Secret template", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "", objectLabels)
	}, "one label set on every object, the operator's managed-by and part-of (its caches and watches select on managed-by); kustomize's build labels (managed-by: kustomize, created-by, component, instance) are not copied"},
	{"managed: selectors without app.kubernetes.io/instance (the Deployment's, the Services'), the ServiceMonitor's with app.kubernetes.io/name", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "", instanceSelector)
	}, "a Deployment's selector is immutable: this operator's has selected app.kubernetes.io/name and control-plane since its first release, and the Services and ServiceMonitor select the same pods"},
	{"managed: owner references with controller: true", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "", ownerController)
	}, "the CR is its objects' controller: the engine never takes over an object another controller owns"},
	{"managed: library-go's operator.openshift.io/spec-hash annotation", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "", specHash)
	}, "resourceapply's hash of the spec it applied: it differs wherever the spec does (those fields are compared on their own), and the operator applies its Deployment through its own apply, which does not write it"},
	{"managed: the pod template's rollout annotations (upstream's secrets/<name> and configmaps/<name> resourceVersions, the operator's operator.llm-infra.io/hash-* of the data)", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "Deployment", rolloutTriggers)
	}, "both roll the pods when a mounted Secret or ConfigMap changes; the hash of the data does not roll them when only metadata changes"},
	{"logLevel TraceAll: --zap-log-level=8 where upstream writes 9", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && cr.ours.Spec.LogLevel == operatorv1.TraceAll && pathIn(o, d, "Deployment", zapLogLevel) &&
			d.Golden == "--zap-log-level=9" && d.Ours == "--zap-log-level=8"
	}, "library-go's LogLevelToVerbosity, as every OpenShift operator maps TraceAll; upstream maps the levels by hand"},
	{"managed: the metrics certificate's volume mounts the whole Secret", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "Deployment", metricsCertItems)
	}, "the controller reads only tls.crt and tls.key; the operator's CA and the service CA write no ca.crt, so upstream's listed items failed the volume"},
	{"managed: the pod's seccompProfile RuntimeDefault and the config mount readOnly", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "Deployment", operandHardening) && d.Golden == enginetest.Absent
	}, "the restricted Pod Security level requires the seccomp profile (OpenShift's restricted-v2 SCC sets it anyway); the controller never writes its configuration"},
	{"managed: the CRDs' controller-gen version annotation", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "CustomResourceDefinition", controllerGen)
	}, "the CRDs are LeaderWorkerSet v0.10.0's (operand-git-ref), generated by this project's controller-gen (make generate-operand-manifests); upstream's come from LeaderWorkerSet's main branch"},
	{"managed: the controller's Configuration written in full", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "ConfigMap", controllerConfig)
	}, "the operator writes LeaderWorkerSet's Configuration type (step_config.go): upstream's two settings, the addresses LeaderWorkerSet defaults to, the lease in the operand namespace and, on OpenShift, the cluster's TLS profile (docs/leaderworkerset.md)"},
	{"managed: the ServiceMonitor authenticates with the ServiceAccount token, without a client certificate", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "ServiceMonitor", monitorClientTLS)
	}, "the controller authorizes scrapers by their bearer token (its metrics-reader role); upstream's certFile and keyFile are OpenShift monitoring's client certificate, which the controller does not check"},
	{"managed: the ServiceMonitor's serverName names the metrics Service in the operand's namespace", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && pathIn(o, d, "ServiceMonitor", monitorServer) &&
			d.Golden == "lws-controller-manager-metrics-service.openshift-lws-operator.svc" && d.Ours == "lws-controller-manager-metrics-service."+testNamespace+".svc"
	}, "found by this test: upstream's manifest names openshift-lws-operator and its reconciler's SERVICE_NAMESPACE substitution finds nothing to replace, so in any other namespace Prometheus checks the metrics certificate against the wrong name"},
	{"certificates.source Operator: the operator's CA (its Secrets and bundle, caBundle injected, the ServiceMonitor trusting the bundle) instead of cert-manager's objects and injection", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		if !cr.bothManaged() || cr.source() != lwsoperatorv1.CertificateSourceOperator {
			return false
		}
		return onlyUpstream(o, d) && (o.Kind == "Issuer" || o.Kind == "Certificate") ||
			onlyOurs(o, d) && (o.Kind == "Secret" || o.Kind == "ConfigMap") ||
			pathIn(o, d, "", caInjection) || pathIn(o, d, "ServiceMonitor", monitorCA)
	}, "spec.certificates.source chooses cert-manager, OpenShift's service CA or the operator's own CA (docs/leaderworkerset.md#tls-modes); upstream knows only cert-manager"},
	{"certificates from cert-manager: the issued CA written into the caBundles at install", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && cr.certManager() && pathIn(o, d, "", caInjection) && d.Golden == enginetest.Absent &&
			strings.HasSuffix(d.Path, "caBundle")
	}, "the operator hands the webhooks and the CRD's conversion the CA of the Secret cert-manager issued, once, before the controller starts, and cert-manager's cainjector keeps it from then on; upstream leaves the caBundle to the cainjector, so the first calls can fail until it runs (on these fakes no cainjector runs)"},
	{"certificates.source ServiceCA on a cluster without OpenShift's service CA: nothing past the certificate source, Degraded ServiceCAMissing", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.bothManaged() && cr.source() == lwsoperatorv1.CertificateSourceServiceCA && (onlyUpstream(o, d) || o.Kind == statusKind)
	}, "the service CA was asked for and is not there: the operator says so rather than run the controller without certificates; upstream knows only cert-manager"},
	{"networkPolicy.enabled: the controller's NetworkPolicy", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.oursManaged() && cr.ours.Spec.NetworkPolicyEnabled() && onlyOurs(o, d) && o.Kind == "NetworkPolicy"
	}, "spec.networkPolicy.enabled isolates the controller's pods (docs/network-policies.md); upstream makes none"},
	{"managementState Force: the operator manages the controller, upstream's reconciler does nothing", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		return cr.ours.Spec.ManagementState == operatorv1.Force && (onlyOurs(o, d) || o.Kind == statusKind)
	}, "Force is Managed for an operator that has no upgrade to block (the OpenShift operator API); upstream's reconciler returns unless the state is Managed"},
	{"status: the operator's own conditions and observedGeneration, Available's message and the Deployment's lastGeneration (every other field both write the same)", func(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) bool {
		if o.Kind != statusKind {
			return false
		}
		if d.Golden == enginetest.Absent {
			return ownStatusFields.MatchString(d.Path)
		}
		return d.Ours != enginetest.Absent && rewordedStatusFields.MatchString(d.Path)
	}, "Available, Degraded, Progressing and ServingCertificates with CamelCase reasons and messages that say what to do, observedGeneration, and the Deployment's generation only when this sync applied it; Removed and Unmanaged are reported (upstream's reconciler writes nothing for them)"},
}

// matchLWSDifference is the index of the intended difference d is, or -1.
func matchLWSDifference(cr lwsCR, o enginetest.GoldenObject, d enginetest.FieldDiff) int {
	for i, want := range lwsDifferences {
		if want.matches(cr, o, d) {
			return i
		}
	}
	return -1
}

// TestDifferentialLeaderWorkerSetOperator: see the top of this file.
func TestDifferentialLeaderWorkerSetOperator(t *testing.T) {
	want, seed := differential.Size(t)
	ours, err := crdtest.Load(deployCRDPath)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := crdtest.Load(differential.LWSCRDPath())
	if err != nil {
		t.Fatal(err)
	}
	upstream := differential.StartLWSUpstream(t, testNamespace, testImage)
	pool := differential.Pool{}
	for _, c := range testcases.Accepted {
		pool.Add(".spec", crdtest.Object(t, c)["spec"])
	}
	var descriptions []string
	for _, d := range lwsDifferences {
		descriptions = append(descriptions, d.String())
	}
	run := &differential.Differential{
		APIVersion: "operator.openshift.io/v1", Kind: "LeaderWorkerSetOperator", Name: lwsoperatorv1.SingletonName,
		Generator: &differential.Generator{Schema: ours.Structural(), Pool: pool, Optional: 0.5},
		Admit: func(cr map[string]any) (map[string]any, map[string]any, bool) {
			oursCR, errs := ours.Create(runtime.DeepCopyJSON(cr))
			if len(errs) > 0 {
				return nil, nil, false
			}
			theirsCR, ok := admitUpstream(theirs, cr)
			return oursCR, theirsCR, ok
		},
		Intended: descriptions,
		Distinct: true,
		Compare: func(oursCR, theirsCR map[string]any) (differential.Outcome, error) {
			return compareLWS(t, upstream, oursCR, theirsCR)
		},
	}
	run.Run(t, want, seed)
}

// deployCRDPath is this operator's LeaderWorkerSetOperator CRD.
const deployCRDPath = "../../../../deploy/00_operator.openshift.io_leaderworkersetoperators.crd.yaml"

// admitUpstream stores cr as upstream's API server does: fields its CRD does not know
// (spec.certificates, spec.networkPolicy) pruned, as with kubectl's --validate=false or any
// client that does not ask for strict validation, then validated.
func admitUpstream(crd *crdtest.CRD, cr map[string]any) (map[string]any, bool) {
	stored, errs := crd.Create(runtime.DeepCopyJSON(cr))
	if len(errs) > 0 && !slices.ContainsFunc(errs, func(e *field.Error) bool { return !strings.HasPrefix(e.Detail, "unknown field") }) {
		stored, errs = crd.Create(stored)
	}
	return stored, len(errs) == 0
}

// compareLWS renders an admitted CR both ways and returns what differs.
func compareLWS(t *testing.T, upstream *differential.LWSUpstream, oursCR, theirsCR map[string]any) (differential.Outcome, error) {
	out := differential.NewOutcome()
	typed := &lwsoperatorv1.LeaderWorkerSetOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(oursCR, typed); err != nil {
		return out, err
	}
	cr := lwsCR{ours: typed, theirs: theirsCR}
	theirsCR = runtime.DeepCopyJSON(theirsCR)
	// As the harness's CR is: generation 1, its UID.
	_ = unstructured.SetNestedField(theirsCR, int64(1), "metadata", "generation")
	_ = unstructured.SetNestedField(theirsCR, harnessCRUID, "metadata", "uid")
	upObjects, upStatus, upErr := upstream.Render(theirsCR)
	objects, status, ourErr := renderOurs(t, typed)
	if upErr != nil || ourErr != nil {
		if (upErr == nil) != (ourErr == nil) {
			out.Unlisted["render error"] = fmt.Sprintf("upstream %v, ours %v", upErr, ourErr)
		}
		return out, nil
	}
	golden, mine := map[string]map[string]any{}, map[string]map[string]any{}
	for _, o := range upObjects {
		content := keyedLists(apiServerDefaults(enginetest.TypedContent(t, &unstructured.Unstructured{Object: o})))
		golden[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	for _, o := range objects {
		content := keyedLists(apiServerDefaults(enginetest.TypedContent(t, &unstructured.Unstructured{Object: o})))
		mine[enginetest.ObjectKey(content)] = enginetest.Flatten(content)
	}
	golden[statusKind+"/cluster"] = enginetest.Flatten(conditionsByType(upStatus))
	mine[statusKind+"/cluster"] = enginetest.Flatten(conditionsByType(status))
	differential.Classify(out, golden, mine, func(o enginetest.GoldenObject, d enginetest.FieldDiff) int {
		return matchLWSDifference(cr, o, d)
	})
	return out, nil
}

// harnessCRUID is the UID of the harness's CR (newFakeEnv).
const harnessCRUID = "cr-uid"

// apiServerDefaults gives content what the API server stores for fields a client leaves out,
// where it is not already set: the fakes default nothing, and one side writes some of these
// defaults out (the operator's webhook configurations are generated by controller-gen with them,
// its Deployment spells imagePullPolicy and defaultMode). metadata.generation, the API server's
// count of spec changes, goes: only the operator's fakes keep one.
func apiServerDefaults(content map[string]any) map[string]any {
	setDefault := func(m map[string]any, key string, value any) {
		if _, ok := m[key]; !ok && m != nil {
			m[key] = value
		}
	}
	unstructured.RemoveNestedField(content, "metadata", "generation")
	switch kind := content["kind"]; kind {
	case "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration":
		webhooks, _ := content["webhooks"].([]any)
		for _, w := range webhooks {
			webhook, _ := w.(map[string]any)
			setDefault(webhook, "matchPolicy", "Equivalent")
			setDefault(webhook, "timeoutSeconds", int64(10))
			if kind == "MutatingWebhookConfiguration" {
				setDefault(webhook, "reinvocationPolicy", "Never")
			}
			if service, ok, _ := unstructured.NestedMap(webhook, "clientConfig", "service"); ok {
				setDefault(service, "port", int64(443))
				_ = unstructured.SetNestedMap(webhook, service, "clientConfig", "service")
			}
			rules, _ := webhook["rules"].([]any)
			for _, r := range rules {
				rule, _ := r.(map[string]any)
				setDefault(rule, "scope", "*")
			}
		}
	case "Deployment":
		podSpec, _, _ := unstructured.NestedMap(content, "spec", "template", "spec")
		containers, _ := podSpec["containers"].([]any)
		for _, c := range containers {
			container, _ := c.(map[string]any)
			if image, _ := container["image"].(string); !strings.HasSuffix(image, ":latest") && strings.Contains(image, ":") {
				setDefault(container, "imagePullPolicy", "IfNotPresent")
			}
		}
		volumes, _ := podSpec["volumes"].([]any)
		for _, v := range volumes {
			if secret, _ := v.(map[string]any)["secret"].(map[string]any); secret != nil {
				setDefault(secret, "defaultMode", int64(420))
			}
		}
		if podSpec != nil {
			_ = unstructured.SetNestedMap(content, podSpec, "spec", "template", "spec")
		}
	}
	return content
}

// keyedLists turns the lists whose items their consumers find by name, not by position, into
// maps by name: a webhook configuration's webhooks (the API server, and the webhooks' callers,
// match each by its name).
func keyedLists(content map[string]any) map[string]any {
	if kind := content["kind"]; kind != "MutatingWebhookConfiguration" && kind != "ValidatingWebhookConfiguration" {
		return content
	}
	webhooks, _ := content["webhooks"].([]any)
	byName := map[string]any{}
	for _, w := range webhooks {
		m, _ := w.(map[string]any)
		byName[fmt.Sprint(m["name"])] = m
		delete(m, "name")
	}
	content["webhooks"] = byName
	return content
}

// conditionsByType is a status with its conditions as a map by type (their order is neither
// side's concern), without the times.
func conditionsByType(status map[string]any) map[string]any {
	status = runtime.DeepCopyJSON(status)
	conditions, _ := status["conditions"].([]any)
	if len(conditions) == 0 {
		return status
	}
	byType := map[string]any{}
	for _, c := range conditions {
		m, _ := c.(map[string]any)
		delete(m, "lastTransitionTime")
		byType[fmt.Sprint(m["type"])] = m
		delete(m, "type")
	}
	status["conditions"] = byType
	return status
}

// cert-manager's and the Prometheus operator's CRDs: the cluster both renderers run on.
var differentialCRDs = append(slices.Clone(certManagerCRDs), engine.CRDName(ServiceMonitorGVR))

// maxOurPasses bounds this operator's syncs of one CR.
const maxOurPasses = 10

// renderOurs runs this operator's sync for cr on the fakes until a sync succeeds and writes
// nothing, cert-manager issuing every Certificate's Secret before each sync, and returns every
// object the syncs created (as the fakes hold them at the end) and the CR's status.
func renderOurs(t *testing.T, cr *lwsoperatorv1.LeaderWorkerSetOperator) ([]map[string]any, map[string]any, error) {
	env := newFakeEnv(t, withCRDs(differentialCRDs...), withState(cr.Spec.ManagementState), withCRLogLevel(cr.Spec.LogLevel),
		withPlacement(cr.Spec.NodePlacement), withNetworkPolicy(cr.Spec.NetworkPolicy))
	defer env.stop()
	env.certificates = cr.Spec.Certificates.DeepCopy()
	_, _, rv, err := env.operator.GetOperatorState()
	if err != nil {
		return nil, nil, err
	}
	if _, _, err := env.operator.UpdateOperatorSpec(env.ctx, rv, cr.Spec.OperatorSpec.DeepCopy()); err != nil {
		return nil, nil, err
	}
	created := createdObjects{}
	var lastErr error
	for pass := 0; pass < maxOurPasses; pass++ {
		env.issueCertificates()
		_, before, _, _ := env.operator.GetOperatorState()
		before = before.DeepCopy()
		env.clearActions()
		lastErr = env.sync()
		env.settleWebhooks()
		env.settleOptional()
		created.record(env)
		writes := env.writes()
		_, after, _, _ := env.operator.GetOperatorState()
		if lastErr == nil && len(writes) == 0 && equalStatus(before, after) {
			status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(after)
			if err != nil {
				return nil, nil, err
			}
			objects, err := created.contents(env)
			return objects, status, err
		}
	}
	if lastErr != nil {
		return nil, nil, lastErr
	}
	return nil, nil, fmt.Errorf("not settled after %d syncs: %v", maxOurPasses, env.writes())
}

// equalStatus compares two statuses without the condition times.
func equalStatus(a, b *operatorv1.OperatorStatus) bool {
	x, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(a)
	y, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(b)
	return fmt.Sprint(conditionsByType(x)) == fmt.Sprint(conditionsByType(y))
}

// issueCertificates plays cert-manager as lws-render does: every Certificate's Secret exists.
func (e *fakeEnv) issueCertificates() {
	e.t.Helper()
	certs, err := e.dynamic.Resource(engine.CertificateGVR).Namespace(testNamespace).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	added := false
	for _, cert := range certs.Items {
		name, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
		if name == "" {
			continue
		}
		if _, err := e.kube.CoreV1().Secrets(testNamespace).Get(e.ctx, name, metav1.GetOptions{}); err == nil {
			continue
		}
		certPEM, key := selfSignedCertificate(name)
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace, Annotations: map[string]string{"cert-manager.io/certificate-name": name}},
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{"tls.crt": certPEM, "tls.key": key, "ca.crt": certPEM},
		}
		if err := e.kube.Tracker().Add(secret); err != nil {
			e.t.Fatal(err)
		}
		added = true
	}
	if added {
		e.settle()
	}
}

// settleOptional waits until the caches hold every Issuer, Certificate and ServiceMonitor the
// fakes hold, at their resourceVersion.
func (e *fakeEnv) settleOptional() {
	e.t.Helper()
	e.waitFor("optional APIs' objects in the caches", func() bool {
		for _, gvr := range []schema.GroupVersionResource{engine.IssuerGVR, engine.CertificateGVR, ServiceMonitorGVR} {
			list, err := e.dynamic.Resource(gvr).Namespace(testNamespace).List(e.ctx, metav1.ListOptions{})
			if err != nil {
				return false
			}
			for _, item := range list.Items {
				cached, err := e.caches.GetMeta(gvr.GroupResource(), testNamespace, item.GetName())
				if err != nil || cached.GetResourceVersion() != item.GetResourceVersion() {
					return false
				}
			}
		}
		return true
	})
}

// createdObjects are the objects the operator created, by where the fakes keep them.
type createdObjects map[createdKey]bool

type createdKey struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

// record adds the objects of the create actions since the last clearActions.
func (c createdObjects) record(e *fakeEnv) {
	for _, actions := range [][]clienttesting.Action{e.kube.Actions(), e.apiext.Actions(), e.dynamic.Actions()} {
		for _, a := range actions {
			create, ok := a.(clienttesting.CreateAction)
			if !ok || a.GetVerb() != "create" || a.GetSubresource() != "" {
				continue
			}
			obj := create.GetObject()
			meta, ok := obj.(metav1.Object)
			if !ok {
				continue
			}
			c[createdKey{a.GetResource(), a.GetNamespace(), meta.GetName()}] = true
		}
	}
}

// contents returns the objects as the fakes hold them now, with apiVersion and kind, without
// status and what the store adds.
func (c createdObjects) contents(e *fakeEnv) ([]map[string]any, error) {
	var out []map[string]any
	for k := range c {
		tracker := e.kube.Tracker()
		switch {
		case k.gvr.Group == apiextensionsv1.GroupName:
			tracker = e.apiext.Tracker()
		case !clientgoscheme.Scheme.IsGroupRegistered(k.gvr.Group):
			tracker = e.dynamic.Tracker()
		}
		obj, err := tracker.Get(k.gvr, k.namespace, k.name)
		if err != nil {
			continue
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		if _, ok := obj.(*unstructured.Unstructured); !ok {
			gvks, _, err := differentialScheme.ObjectKinds(obj)
			if err != nil {
				return nil, err
			}
			content["apiVersion"], content["kind"] = gvks[0].GroupVersion().String(), gvks[0].Kind
		}
		delete(content, "status")
		if metadata, ok := content["metadata"].(map[string]any); ok {
			for _, f := range []string{"resourceVersion", "managedFields", "creationTimestamp"} {
				delete(metadata, f)
			}
		}
		out = append(out, content)
	}
	return out, nil
}

// differentialScheme knows every typed kind the fakes hold.
var differentialScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()
