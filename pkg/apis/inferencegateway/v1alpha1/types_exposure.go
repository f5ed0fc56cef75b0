package v1alpha1

// Service types of ServiceSpec.Type.
const (
	ServiceTypeClusterIP    = "ClusterIP"
	ServiceTypeNodePort     = "NodePort"
	ServiceTypeLoadBalancer = "LoadBalancer"
	ServiceTypeExternalName = "ExternalName"
)

// ServiceSpec is the gateway's Service, named like the Gateway. Its port http always targets the
// container's port http (server.port).
//
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'ExternalName'",fieldPath=".type",message="spec.service.type ExternalName cannot expose the gateway: an ExternalName Service is a DNS alias without endpoints; use ClusterIP, NodePort or LoadBalancer"
type ServiceSpec struct {
	// type of the Service: ClusterIP (the default), NodePort or LoadBalancer. ExternalName, in
	// upstream's enum, is rejected.
	// +optional
	// +kubebuilder:default="ClusterIP"
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer;ExternalName
	Type string `json:"type,omitempty"`

	// port of the Service, 1 to 65535; the HTTPRoute and the Ingress send traffic to it.
	// Default 8080.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// annotations of the Service, for example a cloud load balancer's settings.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Annotations map[string]string `json:"annotations,omitempty"`
}

// IngressSpec is a networking.k8s.io/v1 Ingress named like the Gateway that routes every path of
// host to the gateway's Service.
//
// +kubebuilder:validation:XValidation:rule="!self.enabled || (has(self.host) && size(self.host) > 0)",fieldPath=".host",reason="FieldValueRequired",message="spec.ingress.enabled needs spec.ingress.host: the Ingress routes that host to the gateway"
type IngressSpec struct {
	// enabled creates the Ingress; false deletes it. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// className is the IngressClass. Unset, the cluster's default class.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ClassName string `json:"className,omitempty"`

	// host is the DNS name clients use, for example api.example.com. All its paths go to the
	// gateway.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Host string `json:"host,omitempty"`

	// annotations of the Ingress, for example cert-manager.io/cluster-issuer or the ingress
	// controller's settings.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Annotations map[string]string `json:"annotations,omitempty"`

	// tls terminates HTTPS for host at the ingress controller.
	// +optional
	TLS *IngressTLSSpec `json:"tls,omitempty"`
}

// IngressTLSSpec is the Ingress's TLS for its host.
type IngressTLSSpec struct {
	// enabled adds host and secretName to the Ingress's tls. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// secretName is the kubernetes.io/tls Secret with the certificate for host, in the Gateway's
	// namespace (cert-manager creates it when issuer or a cert-manager annotation is set). Unset,
	// <gateway>-tls.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SecretName string `json:"secretName,omitempty"`

	// issuer is a cert-manager ClusterIssuer that issues the certificate: the Ingress gets the
	// annotation cert-manager.io/cluster-issuer.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Issuer string `json:"issuer,omitempty"`
}

// RoutingSpec exposes the gateway through the Kubernetes Gateway API. The Gateway named here is
// gateway.networking.k8s.io's, not this API's.
type RoutingSpec struct {
	// enabled creates the HTTPRoute (and, without parentRefs, a Gateway API Gateway); false
	// deletes the ones the operator created. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// gateway is the Gateway API Gateway the HTTPRoute attaches to.
	// +optional
	Gateway *RoutingGatewaySpec `json:"gateway,omitempty"`

	// httpRoute is the HTTPRoute, named like the Gateway, that sends every path to the gateway's
	// Service.
	// +optional
	HTTPRoute *RoutingHTTPRouteSpec `json:"httpRoute,omitempty"`
}

// RoutingGatewaySpec is the Gateway API Gateway: one the operator creates, named like the
// Gateway, or, with parentRefs, existing ones.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.parentRefs) && size(self.parentRefs) > 0 && has(self.tls) && self.tls.enabled)",fieldPath=".tls",message="spec.gatewayAPI.gateway.tls configures the listener of the Gateway API Gateway the operator creates, and with parentRefs it creates none: configure TLS on the parent Gateway and remove tls"
type RoutingGatewaySpec struct {
	// gatewayClassName is the GatewayClass of the Gateway API Gateway the operator creates.
	// Default envoy. Not used with parentRefs.
	// +optional
	// +kubebuilder:default="envoy"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	GatewayClassName string `json:"gatewayClassName,omitempty"`

	// parentRefs attach the HTTPRoute to existing Gateways (for example a platform team's shared
	// Gateway); the operator then creates no Gateway API Gateway. Same schema as the HTTPRoute's
	// parentRefs.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	ParentRefs []ParentReference `json:"parentRefs,omitempty"`

	// tls makes the created Gateway's listener HTTPS on port 443 instead of HTTP on port 80.
	// Not allowed with parentRefs.
	// +optional
	TLS *RoutingTLSSpec `json:"tls,omitempty"`
}

// RoutingTLSSpec is TLS on the created Gateway's listener.
type RoutingTLSSpec struct {
	// enabled makes the listener HTTPS on port 443. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// issuer is a cert-manager ClusterIssuer: the Gateway API Gateway gets the annotation
	// cert-manager.io/cluster-issuer, and cert-manager issues secretName.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Issuer string `json:"issuer,omitempty"`

	// secretName is the kubernetes.io/tls Secret of the listener's certificate. Unset,
	// <gateway>-tls.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SecretName string `json:"secretName,omitempty"`
}

// RoutingHTTPRouteSpec is the HTTPRoute the operator creates.
type RoutingHTTPRouteSpec struct {
	// hostnames the HTTPRoute matches; the first is also the created Gateway's listener
	// hostname. Unset, every hostname.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Hostnames []Hostname `json:"hostnames,omitempty"`
}

// Hostname is a Gateway API hostname (gateway.networking.k8s.io/v1 Hostname): a DNS name, with
// an optional leading wildcard label (*.example.com). Same schema as upstream's, which imported
// sigs.k8s.io/gateway-api; the operator does not, to keep that module out of its dependencies.
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
type Hostname string

// ParentReference is a Gateway API parent of a route (gateway.networking.k8s.io/v1
// ParentReference), usually a Gateway: the same fields, defaults and validation as upstream's
// imported type.
type ParentReference struct {
	// group of the parent. Default gateway.networking.k8s.io; "" is the core group (a Service).
	// +optional
	// +kubebuilder:default="gateway.networking.k8s.io"
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Group *string `json:"group,omitempty"`

	// kind of the parent. Default Gateway.
	// +optional
	// +kubebuilder:default="Gateway"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind *string `json:"kind,omitempty"`

	// namespace of the parent. Unset, the Gateway's namespace; another namespace must allow the
	// route (for example through the parent Gateway's allowedRoutes).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace *string `json:"namespace,omitempty"`

	// name of the parent.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// sectionName is the parent's listener (of a Gateway) or port (of a Service) to attach to.
	// Unset, all that allow the route.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SectionName *string `json:"sectionName,omitempty"`

	// port of the parent's listeners to attach to, 1 to 65535. Unset, any.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port *int32 `json:"port,omitempty"`
}
