package v1alpha1

import (
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The messages of the CRDs' CEL rules (x-kubernetes-validations), one per rule. The
// +kubebuilder:validation:XValidation markers on the types repeat them word for word (a marker
// cannot name a constant); the package's tests fail when the two differ.
const (
	// Names the objects of a Gateway or MCP must be able to take.
	MessageGatewayName = "metadata.name must be a DNS label (at most 63 characters, no dots): it names the gateway's Service and is the app.kubernetes.io/instance label of its objects"
	MessageMCPName     = "metadata.name must have at most 55 characters and no dots: it names the MCP server's Service, <name>-service, a DNS label of at most 63"

	// Fields upstream accepted and ignored, which the gateway cannot do.
	MessageScaleTargetRef          = "spec.hpa.config.scaleTargetRef can only name this Gateway's own Deployment (apps/v1 Deployment named like the Gateway), which is what the HorizontalPodAutoscaler always scales: remove scaleTargetRef"
	MessageTracesProtocolGRPC      = "spec.telemetry.traces.exporter.otlp.protocol grpc is not supported: the gateway exports traces over OTLP/HTTP only; use http/protobuf or leave it unset"
	MessageMetricsExporter         = "spec.telemetry.metrics.exporter is not supported: the gateway serves Prometheus metrics on spec.telemetry.metrics.port and exports no metrics (exporters are for upstream's Agent); remove it"
	MessageTelemetryReceiver       = "spec.telemetry.receiver is not supported: the gateway has no OTLP receiver (it is upstream's Orchestrator's); remove it or set enabled: false"
	MessageAuthProvider            = "spec.auth.provider must be oidc: the gateway verifies OIDC tokens only and has no jwt or basic authentication"
	MessageMCPServerHealthCheck    = "spec.mcp.servers[].healthCheck is not supported: the gateway has no per-server health check (it polls every MCP server itself); remove healthCheck or set enabled: false"
	MessageServiceTypeExternalName = "spec.service.type ExternalName cannot expose the gateway: an ExternalName Service is a DNS alias without endpoints; use ClusterIP, NodePort or LoadBalancer"
	MessageGatewayAPITLSParentRefs = "spec.gatewayAPI.gateway.tls configures the listener of the Gateway API Gateway the operator creates, and with parentRefs it creates none: configure TLS on the parent Gateway and remove tls"

	// Settings upstream passed on although the gateway exits, or silently does nothing, with them.
	MessageServerTLSNeedsRefs      = "spec.server.tls.enabled needs certificateRef and keyRef: the gateway serves HTTPS only with both a certificate and a key"
	MessageServerTLSRefNames       = "spec.server.tls.certificateRef and keyRef must each name a Secret in the Gateway's namespace"
	MessageServerTLSHost           = "spec.server.tls.enabled needs spec.server.host 0.0.0.0 or :: (every interface): with TLS the gateway calls itself at its Service's name, <gateway>.<namespace>.svc, which its pod resolves to host"
	MessageAuthNeedsOIDC           = "spec.auth.enabled needs spec.auth.oidc: the gateway checks bearer tokens against an OIDC issuer (issuerUrl, clientId)"
	MessageOIDCRefNames            = "spec.auth.oidc.clientSecretRef and caCertRef must each name an object in the Gateway's namespace"
	MessageProviderManagedEnv      = "spec.providers[].env must not set a variable the operator derives from the spec (see ManagedEnv: ENVIRONMENT, SSL_CERT_FILE, SSL_CERT_DIR and the SERVER_, TELEMETRY_, AUTH_, MCP_, ROUTING_ and GUARDRAILS_ settings the spec has fields for): set the spec field instead"
	MessageCPURequestAboveLimit    = "spec.resources.requests.cpu must not exceed spec.resources.limits.cpu (unset, the request is 100m and the limit 2)"
	MessageMemoryRequestAboveLimit = "spec.resources.requests.memory must not exceed spec.resources.limits.memory (unset, the request is 256Mi and the limit 1Gi)"
	MessageRoutingExclusive        = "spec.routing.config and spec.routing.configMapRef are mutually exclusive: keep one"
	MessageRoutingNeedsConfig      = "spec.routing.enabled needs spec.routing.config or spec.routing.configMapRef: the gateway exits without a routing configuration (the Gateway API settings spec.routing held before upstream's 0.21.0 are now spec.gatewayAPI)"
	MessageRoutingConfigMapName    = "spec.routing.configMapRef.name must name a ConfigMap in the Gateway's namespace"
	MessageGuardrailsNeedPolicies  = "spec.guardrails.enabled needs policies: set configMapRef (a ConfigMap of .rego files) or externalUrl; with neither the gateway allows every request"
	MessageGuardrailsConfigMapName = "spec.guardrails.configMapRef.name must name a ConfigMap in the Gateway's namespace"
	MessageIngressNeedsHost        = "spec.ingress.enabled needs spec.ingress.host: the Ingress routes that host to the gateway"
	MessageHPAMinAboveMax          = "spec.hpa.config.minReplicas must not exceed spec.hpa.config.maxReplicas"
	MessageSelectorExpressions     = "spec.mcp.serviceDiscovery.selector.matchExpressions: operator In and NotIn need values, Exists and DoesNotExist take none"

	// A rule CEL cannot afford (every env entry against every other, across providers):
	// ValidateSpec only, so the API server admits it and the operator reports it.
	MessageProviderEnvDuplicate = "spec.providers[].env: two entries of enabled providers set the same variable, and the gateway would see only the last; set it once"

	// The MCP's rules.
	MessageMCPScaleTargetRef = "spec.hpa.config.scaleTargetRef can only name this MCP's own Deployment (apps/v1 Deployment named like the MCP), which is what the HorizontalPodAutoscaler always scales: remove scaleTargetRef"
	MessageMCPServerTimeout  = "spec.server.timeout is not supported: an MCP server's timeouts are settings of its image (pass them with command or args), and a Gateway's MCP client timeouts are its spec.mcp.timeouts; remove timeout"
	MessageMCPServerPath     = "spec.server.path must be a URL path: / followed by letters, digits, - . _ ~ ! $ & ' ( ) * + ; = : @ / and percent-encoded bytes other than control characters (%00-%1F, %7F); no comma, #, ?, space or other whitespace, since the MCP's URL is joined into the comma-separated server lists of the Gateways that discover it"
)

// mcpServerPath is the CEL rule's pattern of an MCP's spec.server.path: RFC 3986's path
// characters (pchar and "/") except the comma, which would split the URL in MCP_SERVERS, and
// percent-encoded control characters, which a server or proxy may decode into a line break.
var mcpServerPath = regexp.MustCompile(`^(/([-A-Za-z0-9._~!$&'()*+;=:@]|%([2-689A-Fa-f][0-9A-Fa-f]|7[0-9A-Ea-e]))*)+$`)

// ValidateSpec checks the CEL rules of the Gateway CRD and returns the errors the API server
// returns for them (same paths, types and messages), and one rule the CRD cannot check
// (MessageProviderEnvDuplicate). The API server does not check a rule again
// for an object stored before the rule existed, while the update leaves the field alone
// (validation ratcheting), so the operator runs this on every Gateway it reconciles and, on a
// failure, reports Degraded (reason ReasonFor(errs)) instead of deploying a configuration the
// gateway would ignore or exit on. Per-field constraints of the OpenAPI schema (enums, patterns,
// bounds) are not repeated: the API server has always enforced them.
func (in *Gateway) ValidateSpec() field.ErrorList {
	spec := &in.Spec
	path := field.NewPath("spec")
	var errs field.ErrorList
	if !isDNSLabelName(in.Name, 63) {
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, MessageGatewayName))
	}
	errs = append(errs, validateScaleTargetRef(spec.HPA, in.Name, path, MessageScaleTargetRef)...)
	errs = append(errs, spec.Telemetry.validate(path.Child("telemetry"))...)
	errs = append(errs, spec.Server.validate(path.Child("server"))...)
	errs = append(errs, spec.Auth.validate(path.Child("auth"))...)
	for i := range spec.Providers {
		errs = append(errs, spec.Providers[i].validate(path.Child("providers").Index(i))...)
	}
	errs = append(errs, validateProviderEnvUnique(spec.Providers, path.Child("providers"))...)
	if spec.MCP != nil {
		errs = append(errs, spec.MCP.ServiceDiscovery.validate(path.Child("mcp", "serviceDiscovery"))...)
		for i, server := range spec.MCP.Servers {
			if server.HealthCheck != nil && server.HealthCheck.Enabled {
				errs = append(errs, field.Forbidden(path.Child("mcp", "servers").Index(i).Child("healthCheck", "enabled"), MessageMCPServerHealthCheck))
			}
		}
	}
	errs = append(errs, spec.Resources.validate(path.Child("resources"))...)
	if spec.Service != nil && spec.Service.Type == ServiceTypeExternalName {
		errs = append(errs, field.Invalid(path.Child("service", "type"), field.OmitValueType{}, MessageServiceTypeExternalName))
	}
	if spec.Ingress != nil && spec.Ingress.Enabled && spec.Ingress.Host == "" {
		errs = append(errs, field.Required(path.Child("ingress", "host"), MessageIngressNeedsHost))
	}
	if g := spec.GatewayAPI; g != nil && g.Gateway != nil && len(g.Gateway.ParentRefs) > 0 && g.Gateway.TLS != nil && g.Gateway.TLS.Enabled {
		errs = append(errs, field.Invalid(path.Child("gatewayAPI", "gateway", "tls"), field.OmitValueType{}, MessageGatewayAPITLSParentRefs))
	}
	errs = append(errs, spec.Routing.validate(path.Child("routing"))...)
	errs = append(errs, spec.HPA.validate(path.Child("hpa"))...)
	errs = append(errs, spec.Guardrails.validate(path.Child("guardrails"))...)
	errs = append(errs, spec.NetworkPolicy.Validate(path.Child("networkPolicy"))...)
	return errs
}

// ValidateSpec checks the CEL rules of the MCP CRD, as Gateway.ValidateSpec does for Gateways.
func (in *MCP) ValidateSpec() field.ErrorList {
	path := field.NewPath("spec")
	var errs field.ErrorList
	if !isDNSLabelName(in.Name, 55) {
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, MessageMCPName))
	}
	errs = append(errs, validateScaleTargetRef(in.Spec.HPA, in.Name, path, MessageMCPScaleTargetRef)...)
	if s := in.Spec.Server; s != nil && s.Timeout != "" && s.Timeout != DefaultMCPServerTimeout {
		errs = append(errs, field.Invalid(path.Child("server", "timeout"), field.OmitValueType{}, MessageMCPServerTimeout))
	}
	if s := in.Spec.Server; s != nil && s.Path != "" && !mcpServerPath.MatchString(s.Path) {
		errs = append(errs, field.Invalid(path.Child("server", "path"), field.OmitValueType{}, MessageMCPServerPath))
	}
	errs = append(errs, in.Spec.HPA.validate(path.Child("hpa"))...)
	errs = append(errs, in.Spec.NetworkPolicy.Validate(path.Child("networkPolicy"))...)
	return errs
}

// ReasonFor is the Degraded reason for ValidateSpec's errors: RoutingMovedToGatewayAPI when
// spec.routing is enabled without a configuration (what upstream's pre-0.21 spec.routing turns
// into), ValidationFailed otherwise.
func ReasonFor(errs field.ErrorList) string {
	if slices.ContainsFunc(errs, func(err *field.Error) bool { return err.Detail == MessageRoutingNeedsConfig }) {
		return ReasonRoutingMovedToGatewayAPI
	}
	return ReasonValidationFailed
}

// validateScaleTargetRef requires an HPA's scaleTargetRef, when set, to name the object's own
// Deployment.
func validateScaleTargetRef(hpa *HPASpec, name string, spec *field.Path, message string) field.ErrorList {
	if hpa == nil || hpa.Config == nil || hpa.Config.ScaleTargetRef == nil {
		return nil
	}
	ref := hpa.Config.ScaleTargetRef
	if ref.Kind == "Deployment" && ref.Name == name && (ref.APIVersion == "" || ref.APIVersion == "apps/v1") {
		return nil
	}
	return field.ErrorList{field.Invalid(spec.Child("hpa", "config", "scaleTargetRef"), field.OmitValueType{}, message)}
}

func (s *HPASpec) validate(path *field.Path) field.ErrorList {
	if s == nil || s.Config == nil || s.Config.MinReplicas == nil || *s.Config.MinReplicas <= s.Config.MaxReplicas {
		return nil
	}
	return field.ErrorList{field.Invalid(path.Child("config", "minReplicas"), field.OmitValueType{}, MessageHPAMinAboveMax)}
}

func (s *TelemetrySpec) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Traces != nil && s.Traces.Exporter != nil && s.Traces.Exporter.OTLP != nil && s.Traces.Exporter.OTLP.Protocol == OTLPProtocolGRPC {
		errs = append(errs, field.Invalid(path.Child("traces", "exporter", "otlp", "protocol"), field.OmitValueType{}, MessageTracesProtocolGRPC))
	}
	if s.Metrics != nil && s.Metrics.Exporter != nil {
		errs = append(errs, field.Forbidden(path.Child("metrics", "exporter"), MessageMetricsExporter))
	}
	if s.Receiver != nil && s.Receiver.Enabled {
		errs = append(errs, field.Forbidden(path.Child("receiver", "enabled"), MessageTelemetryReceiver))
	}
	return errs
}

func (s *ServerSpec) validate(path *field.Path) field.ErrorList {
	if s == nil || s.TLS == nil {
		return nil
	}
	var errs field.ErrorList
	if s.TLS.Enabled && s.Host != "" && s.Host != "0.0.0.0" && s.Host != "::" {
		errs = append(errs, field.Invalid(path.Child("host"), field.OmitValueType{}, MessageServerTLSHost))
	}
	tls, path := s.TLS, path.Child("tls")
	if tls.Enabled && (tls.CertificateRef == nil || tls.KeyRef == nil) {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageServerTLSNeedsRefs))
	}
	if (tls.CertificateRef != nil && tls.CertificateRef.Name == "") || (tls.KeyRef != nil && tls.KeyRef.Name == "") {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageServerTLSRefNames))
	}
	return errs
}

func (s *AuthSpec) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Provider != "" && s.Provider != AuthProviderOIDC {
		errs = append(errs, field.Invalid(path.Child("provider"), field.OmitValueType{}, MessageAuthProvider))
	}
	if s.Enabled && s.OIDC == nil {
		errs = append(errs, field.Required(path.Child("oidc"), MessageAuthNeedsOIDC))
	}
	if o := s.OIDC; o != nil && ((o.ClientSecretRef != nil && o.ClientSecretRef.Name == "") || (o.CACertRef != nil && o.CACertRef.Name == "")) {
		errs = append(errs, field.Invalid(path.Child("oidc"), field.OmitValueType{}, MessageOIDCRefNames))
	}
	return errs
}

func (s *ProviderSpec) validate(path *field.Path) field.ErrorList {
	for _, env := range s.Env {
		if slices.Contains(ManagedEnv, env.Name) {
			return field.ErrorList{field.Invalid(path.Child("env"), field.OmitValueType{}, MessageProviderManagedEnv)}
		}
	}
	return nil
}

// validateProviderEnvUnique reports each env entry of an enabled provider whose name an earlier
// entry of an enabled provider already set: the container would carry both, and the gateway
// reads the last.
func validateProviderEnvUnique(providers []ProviderSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, provider := range providers {
		if !provider.Enabled {
			continue
		}
		for j, env := range provider.Env {
			if seen[env.Name] {
				errs = append(errs, &field.Error{Type: field.ErrorTypeDuplicate, Field: path.Index(i).Child("env").Index(j).Child("name").String(), BadValue: env.Name, Detail: MessageProviderEnvDuplicate})
			}
			seen[env.Name] = true
		}
	}
	return errs
}

func (s *ResourceRequirements) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	requests, limits := s.Requests, s.Limits
	if requests == nil {
		requests = &ResourceList{}
	}
	if limits == nil {
		limits = &ResourceList{}
	}
	var errs field.ErrorList
	if exceeds(requests.CPU, DefaultCPURequest, limits.CPU, DefaultCPULimit) {
		errs = append(errs, field.Invalid(path.Child("requests"), field.OmitValueType{}, MessageCPURequestAboveLimit))
	}
	if exceeds(requests.Memory, DefaultMemoryRequest, limits.Memory, DefaultMemoryLimit) {
		errs = append(errs, field.Invalid(path.Child("requests"), field.OmitValueType{}, MessageMemoryRequestAboveLimit))
	}
	return errs
}

// exceeds reports whether the request (or its default) is larger than the limit (or its
// default). A value that is not a quantity is the schema's to report.
func exceeds(request, defaultRequest, limit, defaultLimit string) bool {
	if request == "" {
		request = defaultRequest
	}
	if limit == "" {
		limit = defaultLimit
	}
	r, err := resource.ParseQuantity(request)
	if err != nil {
		return false
	}
	l, err := resource.ParseQuantity(limit)
	if err != nil {
		return false
	}
	return r.Cmp(l) > 0
}

func (s *ModelRoutingSpec) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Config != "" && s.ConfigMapRef != nil {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageRoutingExclusive))
	}
	if s.Enabled && s.Config == "" && s.ConfigMapRef == nil {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageRoutingNeedsConfig))
	}
	if s.ConfigMapRef != nil && s.ConfigMapRef.Name == "" {
		errs = append(errs, field.Required(path.Child("configMapRef", "name"), MessageRoutingConfigMapName))
	}
	return errs
}

func (s *GuardrailsSpec) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Enabled && s.ConfigMapRef == nil && s.ExternalURL == "" {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageGuardrailsNeedPolicies))
	}
	if s.ConfigMapRef != nil && s.ConfigMapRef.Name == "" {
		errs = append(errs, field.Required(path.Child("configMapRef", "name"), MessageGuardrailsConfigMapName))
	}
	return errs
}

// validate checks the selector's expressions as the CRD's rule does: without it, a selector
// that does not parse would make the operator drop every discovered server.
func (in *MCPServiceDiscoverySpec) validate(path *field.Path) field.ErrorList {
	if in == nil || selectorExpressionsValid(in.Selector) {
		return nil
	}
	return field.ErrorList{field.Invalid(path.Child("selector"), field.OmitValueType{}, MessageSelectorExpressions)}
}

// selectorExpressionsValid is the discovery selectors' rule: In and NotIn have values, Exists
// and DoesNotExist none, and no other operator.
func selectorExpressionsValid(selector *metav1.LabelSelector) bool {
	if selector == nil {
		return true
	}
	for _, e := range selector.MatchExpressions {
		switch e.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(e.Values) > 0 {
				continue
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(e.Values) == 0 {
				continue
			}
		}
		return false
	}
	return true
}

// isDNSLabelName is the CRDs' rule on metadata.name: an object name (a DNS subdomain, which the
// API server checks first) of at most max characters without dots, so a DNS label.
func isDNSLabelName(name string, max int) bool {
	return len(name) <= max && !strings.Contains(name, ".")
}
