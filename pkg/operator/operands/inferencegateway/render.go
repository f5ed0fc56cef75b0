package inferencegateway

import (
	"cmp"
	"fmt"
	"maps"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// renderInput is everything a Gateway's rendering depends on. Rendering is a pure function of
// it.
type renderInput struct {
	cr *v1alpha1.Gateway
	// mcpServers are the MCP server URLs of MCP_SERVERS (mcpServerURLs: the static ones and
	// those of the MCP objects the controller discovered, sorted, without duplicates).
	mcpServers []string
	// backendCA is the CA of the server certificate (backendCAOf), for the BackendTLSPolicy;
	// "" while the certificate's Secret does not exist.
	backendCA string
	// policy is what the administrator allows the Gateway to name: what it refuses is left
	// out (notAllowed).
	policy engine.Policy
}

// renderedObject is one asset of bindata.InferenceGatewayAssets or bindata.MCPAssets rendered
// for a CR.
type renderedObject struct {
	asset string
	// wanted is false when the CR does not ask for the object (a feature is off): the
	// controller deletes it if the operator made it. Its name and namespace are filled in
	// either way.
	wanted bool
	// obj is typed for built-in kinds (*corev1.ServiceAccount, *corev1.ConfigMap,
	// *corev1.Service, *appsv1.Deployment, *autoscalingv2.HorizontalPodAutoscaler,
	// *networkingv1.Ingress) and *unstructured.Unstructured for the kinds of optional CRDs
	// (Gateway API, Prometheus operator).
	obj runtime.Object
}

// renderAll renders every asset of bindata.InferenceGatewayAssets for a Gateway, in that order.
// A Deployment rendered while spec.hpa.enabled has no replicas: they are the
// HorizontalPodAutoscaler's, and the controller keeps the live value. An error means the CR
// asks for something the gateway cannot run with (the CRD's rules stop it earlier; only an
// object stored before them gets here); the message names the field.
func renderAll(in renderInput) ([]renderedObject, error) {
	r := &gatewayRenderer{renderInput: in, spec: &in.cr.Spec, names: NamesFor(in.cr)}
	objs, err := renderAssets(r, bindata.InferenceGatewayAssets, gatewayRules, map[string]string{
		bindata.NamespacePlaceholder:                      in.cr.Namespace,
		bindata.InferenceGatewayInstancePlaceholder:       in.cr.Name,
		bindata.InferenceGatewayServiceAccountPlaceholder: r.names.ServiceAccount,
		bindata.InferenceGatewayImagePlaceholder:          cmp.Or(in.cr.Spec.Image, defaultImage),
	})
	if err != nil {
		return nil, err
	}
	return objs, withServingNetworkPolicy(objs, gatewayServingPolicy, in.cr.Spec.NetworkPolicy)
}

// gatewayRenderer renders the assets of one Gateway.
type gatewayRenderer struct {
	renderInput
	spec  *v1alpha1.GatewaySpec
	names Names
}

// --- the asset tables, shared by Gateway and MCP ---

// assetRule says when a CR wants an asset and how the CR changes it.
type assetRule[R any] struct {
	wanted func(R) bool
	// build turns the substituted manifest into the object; the CR's fields are applied only
	// when the object is wanted (an unwanted object needs only its name, to be deleted).
	build func(r R, manifest *unstructured.Unstructured, wanted bool) (runtime.Object, error)
}

// renderAssets renders each asset in order: the manifest with its placeholders substituted
// inside string values (engine.Renderer), then the CR applied by the asset's rule.
func renderAssets[R any](r R, assets []string, rules map[string]assetRule[R], placeholders map[string]string) ([]renderedObject, error) {
	renderer := engine.Renderer{Manifests: bindata.FS, Placeholders: placeholders}.Prepared()
	out := make([]renderedObject, 0, len(assets))
	for _, asset := range assets {
		rule, ok := rules[asset]
		if !ok {
			return nil, fmt.Errorf("render %s: no rule for this asset", asset)
		}
		manifest, err := renderer.Manifest(asset)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", asset, err)
		}
		wanted := rule.wanted(r)
		obj, err := rule.build(r, manifest, wanted)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", asset, err)
		}
		out = append(out, renderedObject{asset: asset, wanted: wanted, obj: obj})
	}
	return out, nil
}

// typed builds a built-in kind and applies the CR with the given functions, in order.
func typed[T any, PT interface {
	*T
	runtime.Object
}, R any](apply ...func(R, PT) error) func(R, *unstructured.Unstructured, bool) (runtime.Object, error) {
	return func(r R, manifest *unstructured.Unstructured, wanted bool) (runtime.Object, error) {
		obj, err := engine.FromUnstructured[T](manifest)
		if err != nil {
			return nil, err
		}
		return PT(obj), applyAll(r, PT(obj), wanted, apply)
	}
}

// untyped keeps a kind of an optional CRD unstructured and applies the CR with the given
// functions, in order.
func untyped[R any](apply ...func(R, *unstructured.Unstructured) error) func(R, *unstructured.Unstructured, bool) (runtime.Object, error) {
	return func(r R, manifest *unstructured.Unstructured, wanted bool) (runtime.Object, error) {
		return manifest, applyAll(r, manifest, wanted, apply)
	}
}

func applyAll[R, O any](r R, obj O, wanted bool, apply []func(R, O) error) error {
	if !wanted {
		return nil
	}
	for _, f := range apply {
		if err := f(r, obj); err != nil {
			return err
		}
	}
	return nil
}

func always[R any](R) bool { return true }

// engineDecides is the rule of an asset whose wanted the engine decides after the render (a
// PodDisruptionBudget: engine.Asset.DisruptionBudgetOf); rendered alone, it is not wanted.
func engineDecides[R any](R) bool { return false }

var gatewayRules = map[string]assetRule[*gatewayRenderer]{
	bindata.InferenceGatewayServiceAccount:   {serviceAccountWanted, typed[corev1.ServiceAccount, *corev1.ServiceAccount, *gatewayRenderer]()},
	bindata.InferenceGatewayRoutingConfigMap: {routingConfigMapWanted, typed(routingConfigMap)},
	bindata.InferenceGatewayBackendCA:        {backendCAWanted, typed(backendCAConfigMap)},
	bindata.InferenceGatewayService:          {always[*gatewayRenderer], typed(gatewayService)},
	bindata.InferenceGatewayDeployment:       {always[*gatewayRenderer], typed(gatewayDeployment)},
	bindata.InferenceGatewayHPA:              {gatewayHPAWanted, typed(gatewayHPA)},
	// The engine fills in the budget's spec and whether it is wanted (DisruptionBudgetOf).
	bindata.InferenceGatewayPDB: {engineDecides[*gatewayRenderer], typed[policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudget, *gatewayRenderer]()},
	// withServingNetworkPolicy fills in the policy from the rendered Deployment.
	bindata.InferenceGatewayNetworkPolicy: {func(r *gatewayRenderer) bool { return networkPolicyWanted(r.spec.NetworkPolicy) },
		typed[networkingv1.NetworkPolicy, *networkingv1.NetworkPolicy, *gatewayRenderer]()},
	bindata.InferenceGatewayIngress:           {ingressWanted, typed(gatewayIngress)},
	bindata.InferenceGatewayGatewayAPIGateway: {gatewayAPIGatewayWanted, untyped(gatewayAPIGateway)},
	bindata.InferenceGatewayHTTPRoute:         {httpRouteWanted, untyped(httpRoute)},
	bindata.InferenceGatewayBackendTLSPolicy:  {backendTLSWanted, untyped[*gatewayRenderer]()},
	bindata.InferenceGatewayServiceMonitor:    {serviceMonitorWanted, untyped[*gatewayRenderer]()},
}

// --- when a Gateway wants an asset ---

// serviceAccountWanted: the operator creates the ServiceAccount unless told it exists. The pods
// run as it either way.
func serviceAccountWanted(r *gatewayRenderer) bool {
	return r.spec.ServiceAccount == nil || r.spec.ServiceAccount.Create
}

// routingConfigMapWanted: routing is on with inline config.
func routingConfigMapWanted(r *gatewayRenderer) bool {
	src := routingSourceOf(r.spec)
	return src != nil && src.inline
}

func gatewayHPAWanted(r *gatewayRenderer) bool { return hpaEnabled(r.spec.HPA) }

func ingressWanted(r *gatewayRenderer) bool { return ingressEnabled(r.spec) }

func httpRouteWanted(r *gatewayRenderer) bool { return gatewayAPIEnabled(r.spec) }

// backendTLSWanted: the HTTPRoute's backend serves HTTPS, so the Gateway API implementation
// needs a BackendTLSPolicy and the CA it names (issue 16, defect 2).
func backendTLSWanted(r *gatewayRenderer) bool {
	return gatewayAPIEnabled(r.spec) && serverTLSEnabled(r.spec)
}

// backendCAWanted: the CA ConfigMap the BackendTLSPolicy names, once the certificate's Secret
// holds a certificate. A ConfigMap holds certificates only (issue 33): none is written while the
// Secret is missing or holds no CERTIFICATE block, and the policy's CA reference stays
// unresolved meanwhile, which the Gateway API implementation reports on the policy (an empty CA
// verified nothing either).
func backendCAWanted(r *gatewayRenderer) bool {
	return backendTLSWanted(r) && r.backendCA != ""
}

// gatewayAPIGatewayWanted: the operator creates a Gateway API Gateway unless the HTTPRoute
// attaches to parents the user names.
func gatewayAPIGatewayWanted(r *gatewayRenderer) bool {
	return gatewayAPIEnabled(r.spec) && len(parentRefsOf(r.spec.GatewayAPI)) == 0 && r.policy.GatewayClasses.Allows(gatewayClassOf(r.spec))
}

func ingressEnabled(spec *v1alpha1.GatewaySpec) bool {
	return spec.Ingress != nil && spec.Ingress.Enabled
}

func gatewayAPIEnabled(spec *v1alpha1.GatewaySpec) bool {
	return spec.GatewayAPI != nil && spec.GatewayAPI.Enabled
}

// serviceMonitorWanted: the gateway serves metrics on a port the Service declares, and
// spec.telemetry.metrics.serviceMonitor.enabled is not false.
func serviceMonitorWanted(r *gatewayRenderer) bool {
	if !metricsDeclared(r.spec) {
		return false
	}
	sm := r.spec.Telemetry.Metrics.ServiceMonitor
	return sm == nil || sm.Enabled == nil || *sm.Enabled
}

// serviceMonitorRequired: spec.telemetry.metrics.serviceMonitor.enabled is true. Only then is a
// missing CRD or someone else's ServiceMonitor of the name a problem; unset, the ServiceMonitor
// is the operator's extra (upstream creates none), and either is only noted (issue 16, defect
// 7).
func serviceMonitorRequired(spec *v1alpha1.GatewaySpec) bool {
	if !metricsDeclared(spec) {
		return false
	}
	sm := spec.Telemetry.Metrics.ServiceMonitor
	return sm != nil && sm.Enabled != nil && *sm.Enabled
}

func hpaEnabled(hpa *v1alpha1.HPASpec) bool { return hpa != nil && hpa.Enabled }

func parentRefsOf(g *v1alpha1.RoutingSpec) []v1alpha1.ParentReference {
	if g == nil || g.Gateway == nil {
		return nil
	}
	return g.Gateway.ParentRefs
}

// --- the routing ConfigMap and the Service ---

func routingConfigMap(r *gatewayRenderer, cm *corev1.ConfigMap) error {
	cm.Data = map[string]string{routingInlineKey: r.spec.Routing.Config}
	return nil
}

// backendCAConfigMap holds the CA the BackendTLSPolicy verifies the gateway with.
func backendCAConfigMap(r *gatewayRenderer, cm *corev1.ConfigMap) error {
	cm.Data = map[string]string{backendCAKey: r.backendCA}
	return nil
}

// backendCAKey is the key of a BackendTLSPolicy's CA ConfigMap, the one Gateway API requires,
// and the key of a kubernetes.io/tls Secret's CA (cert-manager writes it).
const backendCAKey = "ca.crt"

// backendCAOf is the CA a client needs to verify the gateway's certificate, from the Secret of
// spec.server.tls.certificateRef: its ca.crt when it has one (cert-manager's Secrets do),
// else the served chain itself (a self-signed certificate, or a chain that ends in its root
// such as OpenShift's service CA's). Certificates are public; only their PEM blocks are kept
// (engine.CertificatesOnly), so a bundle at ref.Key that also holds the key does not copy it.
func backendCAOf(spec *v1alpha1.GatewaySpec, secret func(name string) *corev1.Secret) string {
	if !serverTLSEnabled(spec) || spec.Server.TLS.CertificateRef == nil {
		return ""
	}
	ref := spec.Server.TLS.CertificateRef
	s := secret(ref.Name)
	if s == nil {
		return ""
	}
	if ca := s.Data[backendCAKey]; len(ca) > 0 {
		return engine.CertificatesOnly(ca)
	}
	return engine.CertificatesOnly(s.Data[ref.Key])
}

// Port names of the gateway's container; the Service's ports target them by name, so they
// always reach the port the gateway listens on.
const (
	portHTTP    = "http"
	portMetrics = "metrics"
)

// appProtocolHTTPS is the Service port's appProtocol when the gateway serves TLS.
const appProtocolHTTPS = "https"

// servicePort is the port of the Service (and of the HTTPRoute's and the Ingress's backend):
// spec.service.port, else the gateway's own port.
func servicePort(spec *v1alpha1.GatewaySpec) int32 {
	if spec.Service != nil && spec.Service.Port > 0 {
		return spec.Service.Port
	}
	return serverPort(spec)
}

// gatewayService sets the Service's port, its metrics port, type and annotations. Upstream's
// targetPort was the Service's port number, which misses the gateway whenever the two differ
// (reference §7.6).
func gatewayService(r *gatewayRenderer, svc *corev1.Service) error {
	svc.Spec.Ports[0].Port = servicePort(r.spec)
	if serverTLSEnabled(r.spec) {
		// Issue 16, defect 2: whatever routes to this port (Gateway API implementations, some
		// ingress controllers, meshes) learns that it speaks HTTPS.
		svc.Spec.Ports[0].AppProtocol = ptr.To(appProtocolHTTPS)
	}
	if metricsDeclared(r.spec) {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{
			Name: portMetrics, Port: metricsPort(r.spec), Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString(portMetrics),
		})
	}
	if s := r.spec.Service; s != nil {
		if s.Type == v1alpha1.ServiceTypeExternalName {
			return fmt.Errorf("spec.service.type ExternalName cannot expose the gateway: use ClusterIP, NodePort or LoadBalancer")
		}
		svc.Spec.Type = corev1.ServiceType(s.Type)
		if len(s.Annotations) > 0 {
			svc.Annotations = maps.Clone(s.Annotations)
		}
	}
	return nil
}

// --- the Deployment ---

const gatewayContainer = "inference-gateway"

// gatewayDeployment applies the Gateway to the manifest's pod, one field group per hook.
func gatewayDeployment(r *gatewayRenderer, d *appsv1.Deployment) error {
	c := engine.ContainerOf(d, gatewayContainer)
	if c == nil {
		return fmt.Errorf("the manifest has no container %q", gatewayContainer)
	}
	resources, err := gatewayResources(r.spec.Resources)
	if err != nil {
		return err
	}
	if serverTLSEnabled(r.spec) {
		if tls := r.spec.Server.TLS; tls.CertificateRef == nil || tls.KeyRef == nil {
			return fmt.Errorf("spec.server.tls.enabled needs certificateRef and keyRef")
		}
	}
	return engine.RunHooks(d,
		withReplicas(r.spec.Replicas, r.spec.HPA),
		func(d *appsv1.Deployment) error {
			c.Env = gatewayEnv(r.spec, r.names, r.mcpServers)
			c.Resources = resources
			return nil
		},
		withGatewayPorts(c, r.spec),
		withGatewayVolumes(c, r.spec, r.names),
		withSelfHostAlias(r.spec, r.names),
	)
}

// withSelfHostAlias: with server TLS, SERVER_HOST is the Service's name (env.go says why), and
// the pod's /etc/hosts resolves it to the address the gateway listens on, spec.server.host
// (0.0.0.0 or ::): the gateway binds every interface and reaches itself at that name.
func withSelfHostAlias(spec *v1alpha1.GatewaySpec, names Names) engine.DeploymentHook {
	return func(d *appsv1.Deployment) error {
		if serverTLSEnabled(spec) {
			d.Spec.Template.Spec.HostAliases = []corev1.HostAlias{{IP: listenHost(spec), Hostnames: []string{names.ServiceHost}}}
		}
		return nil
	}
}

// withReplicas: the spec's replicas, or none while a HorizontalPodAutoscaler owns them (an
// apply must never reset what it chose; the controller keeps the live value).
func withReplicas(replicas *int32, hpa *v1alpha1.HPASpec) engine.DeploymentHook {
	return func(d *appsv1.Deployment) error {
		switch {
		case hpaEnabled(hpa):
			d.Spec.Replicas = nil
		case replicas != nil:
			d.Spec.Replicas = ptr.To(*replicas)
		}
		return nil
	}
}

// withGatewayPorts puts the gateway's port on the container and the probes (HTTPS when the
// gateway serves TLS), and declares the metrics port. Upstream's https port 8443, which nothing
// listened on, is gone: with TLS the gateway serves HTTPS on its one port (reference §7.5).
func withGatewayPorts(c *corev1.Container, spec *v1alpha1.GatewaySpec) engine.DeploymentHook {
	return func(*appsv1.Deployment) error {
		port := serverPort(spec)
		c.Ports = []corev1.ContainerPort{{Name: portHTTP, ContainerPort: port}}
		if metricsDeclared(spec) {
			c.Ports = append(c.Ports, corev1.ContainerPort{Name: portMetrics, ContainerPort: metricsPort(spec)})
		}
		scheme := corev1.URISchemeHTTP
		if serverTLSEnabled(spec) {
			scheme = corev1.URISchemeHTTPS
		}
		for _, probe := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe} {
			probe.HTTPGet.Port = intstr.FromInt32(port)
			if scheme != corev1.URISchemeHTTP {
				probe.HTTPGet.Scheme = scheme
			}
		}
		return nil
	}
}

// withGatewayVolumes mounts what the gateway reads at start-up: the TLS certificate and key,
// the OIDC issuer's CA, the routing file and the guardrails policies.
func withGatewayVolumes(c *corev1.Container, spec *v1alpha1.GatewaySpec, names Names) engine.DeploymentHook {
	return func(d *appsv1.Deployment) error {
		pod := &d.Spec.Template.Spec
		mount := func(v corev1.Volume, m corev1.VolumeMount) {
			pod.Volumes = append(pod.Volumes, v)
			c.VolumeMounts = append(c.VolumeMounts, m)
		}
		if serverTLSEnabled(spec) {
			// One projected volume takes the certificate and the key from one Secret or two.
			tls := spec.Server.TLS
			mount(corev1.Volume{Name: "inference-gateway-tls", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{secretFile(tls.CertificateRef, tlsCertFile), secretFile(tls.KeyRef, tlsKeyFile)},
			}}}, corev1.VolumeMount{Name: "inference-gateway-tls", MountPath: tlsDir, ReadOnly: true})
		}
		if oidc := oidcOf(spec); oidc != nil && oidc.CACertRef != nil {
			mount(configMapVolume("oidc-ca", oidc.CACertRef.Name),
				corev1.VolumeMount{Name: "oidc-ca", MountPath: oidcCAPath, SubPath: oidc.CACertRef.Key, ReadOnly: true})
		}
		if src := routingSourceOf(spec); src != nil {
			cm := src.configMap
			if src.inline {
				cm = names.RoutingConfigMap
			}
			mount(configMapVolume("model-routing", cm), corev1.VolumeMount{Name: "model-routing", MountPath: routingDir, ReadOnly: true})
		}
		if g := spec.Guardrails; g != nil && g.Enabled && g.ConfigMapRef != nil {
			mount(configMapVolume("guardrails-policies", g.ConfigMapRef.Name),
				corev1.VolumeMount{Name: "guardrails-policies", MountPath: guardrailsDir, ReadOnly: true})
		}
		return nil
	}
}

func secretFile(ref *corev1.SecretKeySelector, path string) corev1.VolumeProjection {
	return corev1.VolumeProjection{Secret: &corev1.SecretProjection{
		LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name},
		Items:                []corev1.KeyToPath{{Key: ref.Key, Path: path}},
	}}
}

func configMapVolume(name, configMap string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: configMap},
	}}}
}

// gatewayResources are the container's requests and limits: each value the spec gives replaces
// the default. A value that is no quantity is an error naming the field (upstream silently kept
// the default; the CRD's pattern now rejects it).
func gatewayResources(spec *v1alpha1.ResourceRequirements) (corev1.ResourceRequirements, error) {
	out := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(v1alpha1.DefaultCPURequest),
			corev1.ResourceMemory: resource.MustParse(v1alpha1.DefaultMemoryRequest),
		},
		Limits: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(v1alpha1.DefaultCPULimit),
			corev1.ResourceMemory: resource.MustParse(v1alpha1.DefaultMemoryLimit),
		},
	}
	if spec == nil {
		return out, nil
	}
	for _, l := range []struct {
		field string
		from  *v1alpha1.ResourceList
		into  corev1.ResourceList
	}{{"requests", spec.Requests, out.Requests}, {"limits", spec.Limits, out.Limits}} {
		if l.from == nil {
			continue
		}
		for name, value := range map[corev1.ResourceName]string{corev1.ResourceCPU: l.from.CPU, corev1.ResourceMemory: l.from.Memory} {
			if value == "" {
				continue
			}
			q, err := resource.ParseQuantity(value)
			if err != nil {
				return out, fmt.Errorf("spec.resources.%s.%s %q is not a quantity", l.field, name, value)
			}
			l.into[name] = q
		}
	}
	return out, nil
}

// --- the HorizontalPodAutoscaler, for a Gateway and an MCP ---

func gatewayHPA(r *gatewayRenderer, hpa *autoscalingv2.HorizontalPodAutoscaler) error {
	applyHPAConfig(hpa, r.spec.HPA.Config)
	return nil
}

// applyHPAConfig copies spec.hpa.config onto the manifest's autoscaler, whose target stays the
// CR's own Deployment. Unset minReplicas and metrics keep the manifest's values (1, and 80%
// average CPU), which are also what the API server defaults them to.
func applyHPAConfig(hpa *autoscalingv2.HorizontalPodAutoscaler, config *v1alpha1.CustomHorizontalPodAutoscalerSpec) {
	if config == nil {
		return
	}
	if config.MinReplicas != nil {
		hpa.Spec.MinReplicas = ptr.To(*config.MinReplicas)
	}
	hpa.Spec.MaxReplicas = config.MaxReplicas
	if len(config.Metrics) > 0 {
		hpa.Spec.Metrics = make([]autoscalingv2.MetricSpec, len(config.Metrics))
		for i := range config.Metrics {
			config.Metrics[i].DeepCopyInto(&hpa.Spec.Metrics[i])
		}
	}
	hpa.Spec.Behavior = config.Behavior.DeepCopy()
}

// --- the Ingress ---

// gatewayIngress routes every path of spec.ingress.host to the Service's port, with the CR's
// class and annotations; with TLS, the host's certificate Secret (secretName, else
// "<gateway>-tls") and, with an issuer, cert-manager's annotation to issue it.
func gatewayIngress(r *gatewayRenderer, ing *networkingv1.Ingress) error {
	spec := r.spec.Ingress
	// The spec's annotations and tls.issuer's, less cert-manager's that name a ClusterIssuer
	// the administrator does not allow (notAllowed reports them).
	annotations := ingressAnnotationsOf(r.spec)
	for key, issuer := range engine.AnnotatedClusterIssuers(annotations) {
		if !r.policy.ClusterIssuers.Allows(issuer) {
			delete(annotations, key)
		}
	}
	rule := &ing.Spec.Rules[0]
	rule.Host = spec.Host
	rule.HTTP.Paths[0].Backend.Service.Port.Number = servicePort(r.spec)
	if spec.ClassName != "" {
		ing.Spec.IngressClassName = ptr.To(spec.ClassName)
	}
	if serverTLSEnabled(r.spec) {
		// Issue 16, defect 2: the gateway serves HTTPS, so the controller must speak it to the
		// backend; the spec's annotations win over these.
		for key, value := range httpsBackendAnnotations {
			if _, set := annotations[key]; !set {
				annotations[key] = value
			}
		}
	}
	if tls := spec.TLS; tls != nil && tls.Enabled {
		entry := networkingv1.IngressTLS{SecretName: cmp.Or(tls.SecretName, r.names.ListenerTLSSecret)}
		if spec.Host != "" {
			entry.Hosts = []string{spec.Host}
		}
		ing.Spec.TLS = []networkingv1.IngressTLS{entry}
	}
	if len(annotations) > 0 {
		ing.Annotations = annotations
	}
	return nil
}

// httpsBackendAnnotations make the common ingress controllers speak HTTPS to a gateway that
// serves TLS (spec.server.tls): ingress-nginx's backend protocol, and OpenShift's router, which
// turns the Ingress into a reencrypt Route (it verifies the gateway's certificate against the
// service CA unless route.openshift.io/destination-ca-certificate-secret names another). Other
// controllers take their own annotation through spec.ingress.annotations, or the Service port's
// appProtocol https.
var httpsBackendAnnotations = map[string]string{
	"nginx.ingress.kubernetes.io/backend-protocol": "HTTPS",
	"route.openshift.io/termination":               "reencrypt",
}

// --- Gateway API ---

// gatewayAPIGateway sets the class, the listener and the issuer annotation of the Gateway API
// Gateway: HTTP on port 80, or HTTPS on 443 with the certificate of secretName (else
// "<gateway>-tls"); the first HTTPRoute hostname is the listener's hostname.
func gatewayAPIGateway(r *gatewayRenderer, gw *unstructured.Unstructured) error {
	spec := r.spec.GatewayAPI
	class := gatewayClassOf(r.spec)
	listener := map[string]interface{}{"name": "http", "protocol": "HTTP", "port": int64(80)}
	if tls := listenerTLSOf(r.spec); tls != nil {
		listener = map[string]interface{}{
			"name": "https", "protocol": "HTTPS", "port": int64(443),
			"tls": map[string]interface{}{"certificateRefs": []interface{}{
				map[string]interface{}{"name": cmp.Or(tls.SecretName, r.names.ListenerTLSSecret)},
			}},
		}
		if tls.Issuer != "" && r.policy.ClusterIssuers.Allows(tls.Issuer) {
			gw.SetAnnotations(map[string]string{engine.CertManagerClusterIssuerAnnotation: tls.Issuer})
		}
	}
	if hostnames := hostnamesOf(spec); len(hostnames) > 0 {
		listener["hostname"] = hostnames[0]
	}
	if err := unstructured.SetNestedField(gw.Object, class, "spec", "gatewayClassName"); err != nil {
		return err
	}
	return unstructured.SetNestedSlice(gw.Object, []interface{}{listener}, "spec", "listeners")
}

// httpRoute attaches the route to its parents (the Gateway API Gateway of the manifest, or
// spec.gatewayAPI.gateway.parentRefs), matches the hostnames and sends every path to the
// Service's actual port (upstream could send it to a port the Service does not have,
// reference §7.21).
func httpRoute(r *gatewayRenderer, route *unstructured.Unstructured) error {
	if refs := parentRefsOf(r.spec.GatewayAPI); len(refs) > 0 {
		parents := make([]interface{}, len(refs))
		for i, ref := range refs {
			parents[i] = parentRefMap(ref)
		}
		if err := unstructured.SetNestedSlice(route.Object, parents, "spec", "parentRefs"); err != nil {
			return err
		}
	}
	if hostnames := hostnamesOf(r.spec.GatewayAPI); len(hostnames) > 0 {
		if err := unstructured.SetNestedStringSlice(route.Object, hostnames, "spec", "hostnames"); err != nil {
			return err
		}
	}
	rules, _, err := unstructured.NestedSlice(route.Object, "spec", "rules")
	if err != nil || len(rules) != 1 {
		return fmt.Errorf("the manifest must have one rule")
	}
	backends := rules[0].(map[string]interface{})["backendRefs"].([]interface{})
	backends[0].(map[string]interface{})["port"] = int64(servicePort(r.spec))
	return unstructured.SetNestedSlice(route.Object, rules, "spec", "rules")
}

func hostnamesOf(spec *v1alpha1.RoutingSpec) []string {
	if spec == nil || spec.HTTPRoute == nil {
		return nil
	}
	out := make([]string, len(spec.HTTPRoute.Hostnames))
	for i, h := range spec.HTTPRoute.Hostnames {
		out[i] = string(h)
	}
	return out
}

// parentRefMap is a ParentReference as the HTTPRoute's JSON, with only the fields that are set.
func parentRefMap(ref v1alpha1.ParentReference) map[string]interface{} {
	m := map[string]interface{}{"name": ref.Name}
	for key, value := range map[string]*string{"group": ref.Group, "kind": ref.Kind, "namespace": ref.Namespace, "sectionName": ref.SectionName} {
		if value != nil {
			m[key] = *value
		}
	}
	if ref.Port != nil {
		m["port"] = int64(*ref.Port)
	}
	return m
}

// --- what the controller needs besides the objects ---

// serviceAccountName is status.serviceAccountName: the ServiceAccount the pods run as.
func serviceAccountName(gw *v1alpha1.Gateway) string {
	return NamesFor(gw).ServiceAccount
}

// gatewayURL is status.url, where clients reach the gateway: the Ingress's host when an Ingress
// exposes it, else the first HTTPRoute hostname (https with TLS on the Ingress or the Gateway
// API listener), else the Service's cluster DNS name with its port (https when the gateway
// serves TLS). Upstream's URL for the Service had no port, so it did not work as written
// (reference §7.11). Wildcard hostnames name no host and are skipped.
func gatewayURL(gw *v1alpha1.Gateway) string {
	spec := &gw.Spec
	if ing := spec.Ingress; ingressEnabled(spec) && isHost(ing.Host) {
		return scheme(ing.TLS != nil && ing.TLS.Enabled) + "://" + ing.Host
	}
	if gatewayAPIEnabled(spec) {
		tls := spec.GatewayAPI.Gateway != nil && spec.GatewayAPI.Gateway.TLS != nil && spec.GatewayAPI.Gateway.TLS.Enabled
		for _, h := range hostnamesOf(spec.GatewayAPI) {
			if isHost(h) {
				return scheme(tls) + "://" + h
			}
		}
	}
	return fmt.Sprintf("%s://%s.%s.svc.cluster.local:%d", scheme(serverTLSEnabled(spec)), gw.Name, gw.Namespace, servicePort(spec))
}

func isHost(h string) bool { return h != "" && !strings.HasPrefix(h, "*") }

func scheme(tls bool) string {
	if tls {
		return "https"
	}
	return "http"
}

// podInputs are the ConfigMaps and Secrets a pod reads when it starts, each once, sorted. The
// gateway reads them only then, so the controller watches each one and hashes its data into
// the pod template (engine.ConfigHashAnnotations): a change rolls the pods.
type podInputs struct {
	ConfigMaps []types.NamespacedName
	Secrets    []types.NamespacedName
	// Optional are the names of those referenced only as optional (env entries with
	// optional: true): the pods start without them, so a missing one is no problem. Secrets and
	// ConfigMaps apart, since a name may be both.
	OptionalSecrets, OptionalConfigMaps sets.Set[string]
}

// gatewayPodInputs lists what a Gateway's pods read: the rendered routing ConfigMap or the
// referenced one, the guardrails and OIDC CA ConfigMaps; the Secrets and ConfigMaps of the
// enabled providers' env, the OIDC client Secret and the TLS Secrets.
func gatewayPodInputs(gw *v1alpha1.Gateway) podInputs {
	spec := &gw.Spec
	secrets, configMaps := engine.NeededNames{}, engine.NeededNames{}
	for _, e := range providerEnv(spec) {
		if e.ValueFrom == nil {
			continue
		}
		if ref := e.ValueFrom.SecretKeyRef; ref != nil {
			secrets.Add(ref.Name, ref.Optional)
		}
		if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
			configMaps.Add(ref.Name, ref.Optional)
		}
	}
	if oidc := oidcOf(spec); oidc != nil {
		if oidc.ClientSecretRef != nil {
			secrets.Add(oidc.ClientSecretRef.Name, nil)
		}
		if oidc.CACertRef != nil {
			configMaps.Add(oidc.CACertRef.Name, nil)
		}
	}
	if serverTLSEnabled(spec) {
		for _, ref := range []*corev1.SecretKeySelector{spec.Server.TLS.CertificateRef, spec.Server.TLS.KeyRef} {
			if ref != nil {
				secrets.Add(ref.Name, nil)
			}
		}
	}
	if src := routingSourceOf(spec); src != nil && src.inline {
		configMaps.Add(NamesFor(gw).RoutingConfigMap, nil)
	} else if src != nil {
		configMaps.Add(src.configMap, nil)
	}
	if g := spec.Guardrails; g != nil && g.Enabled && g.ConfigMapRef != nil {
		configMaps.Add(g.ConfigMapRef.Name, nil)
	}
	return podInputs{ConfigMaps: configMaps.In(gw.Namespace), Secrets: secrets.In(gw.Namespace),
		OptionalSecrets: secrets.Optional(), OptionalConfigMaps: configMaps.Optional()}
}
