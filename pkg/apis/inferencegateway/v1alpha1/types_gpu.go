package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GPU is one GPU-backed inference runtime leased from an external provider (RunPod) and reached
// over HTTP. The cluster is only the control plane: the hardware, drivers, scheduling and the
// runtime stay with the provider. It is not a node, a device, an nvidia.com/gpu request or a
// replacement for the device plugin.
//
// The operator leases the allocation (idempotently: the provider's object is named after the
// GPU's UID, so a restart finds it again), waits until endpoint.readinessPath answers with a 2xx
// before it reports Ready, writes the Secret <name>-connection (url, and apiKey: a token made
// for this allocation, never the provider's key), releases the allocation when maxRuntime has
// passed (phase Expired, not leased again until maxRuntime changes) and, through the finalizer
// core.inference-gateway.com/gpu-cleanup, before the GPU is deleted.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gpus,scope=Namespaced,singular=gpu,shortName=gpu,categories=inference-gateway
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="PHASE",type=string,JSONPath=`.status.phase`,description="Lifecycle phase"
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.status.url`,description="Inference endpoint URL"
// +kubebuilder:printcolumn:name="INSTANCE",type=string,JSONPath=`.status.instanceID`,description="Provider allocation ID"
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`,description="Age of the resource"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="metadata.name must have at most 63 characters: it is the app.kubernetes.io/instance label of the GPU's connection Secret"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.status) || !has(oldSelf.status.instanceID) || size(oldSelf.status.instanceID) == 0 || !has(oldSelf.spec) || !has(self.spec) || self.spec.credentialsRef == oldSelf.spec.credentialsRef",message="spec.credentialsRef cannot change while the GPU holds an allocation (status.instanceID): only the key that leased it can release it; rotate the key by changing the value in the Secret, or change credentialsRef once the allocation is released"
type GPU struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the allocation to lease.
	// +optional
	Spec GPUSpec `json:"spec,omitempty"`

	// status is written by the operator: the phase, the allocation and its endpoint.
	// +optional
	Status GPUStatus `json:"status,omitempty"`
}

// GPUProviderRunPod is the only provider.
const GPUProviderRunPod = "runpod"

// GPUSpec is the allocation to lease. What the allocation runs (provider, image, command,
// gpuTypes, endpoint) cannot change once the GPU exists: the provider runs what it was leased
// with. maxRuntime may change, and credentialsRef while no allocation is held (the key that
// leased an allocation is the one that can release it: issue 33).
//
// +kubebuilder:validation:XValidation:rule="!self.maxRuntime.matches('^([0-9]+([.][0-9]+)?(ms|s|m|h))+$') || duration(self.maxRuntime) > duration('0s')",fieldPath=".maxRuntime",message="spec.maxRuntime must be longer than 0s"
// +kubebuilder:validation:XValidation:rule="self.provider == oldSelf.provider && self.image == oldSelf.image && (has(self.command) ? self.command : []) == (has(oldSelf.command) ? oldSelf.command : []) && self.gpuTypes == oldSelf.gpuTypes && self.endpoint == oldSelf.endpoint",message="spec.provider, image, command, gpuTypes and endpoint cannot change: the allocation runs what it was leased with; create another GPU (only maxRuntime and credentialsRef may change)"
type GPUSpec struct {
	// provider is the GPU provider's driver: runpod. Default runpod.
	// +required
	// +kubebuilder:default=runpod
	// +kubebuilder:validation:Enum=runpod
	Provider string `json:"provider"`

	// credentialsRef is the Secret key (in the GPU's namespace) holding the provider's
	// management API key. The operator reads it for each call to the provider and never writes
	// it anywhere: not into status, events, logs or the connection Secret.
	// +required
	// +kubebuilder:validation:XValidation:rule="!has(self.optional) || !self.optional",fieldPath=".optional",reason="FieldValueForbidden",message="spec.credentialsRef.optional cannot be true: the operator cannot lease or release an allocation without the provider's key"
	CredentialsRef corev1.SecretKeySelector `json:"credentialsRef"`

	// image is the container image the provider runs on the GPU.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Image string `json:"image"`

	// command is the runtime's start command and arguments (appended to the image's entrypoint
	// by RunPod).
	// +optional
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=4096
	Command []string `json:"command,omitempty"`

	// gpuTypes are the provider's GPU type identifiers, most preferred first (for example
	// "NVIDIA A100 80GB PCIe"); the provider picks the first it has.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	GPUTypes []string `json:"gpuTypes"`

	// endpoint is the runtime's HTTP port and readiness path.
	// +required
	Endpoint GPUEndpointSpec `json:"endpoint"`

	// maxRuntime is the allocation's longest life, a duration such as 2h: once it has passed
	// since the allocation was leased, the operator releases it and the GPU's phase is Expired.
	// An expired GPU is not leased again until maxRuntime changes.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	MaxRuntime metav1.Duration `json:"maxRuntime"`
}

// GPUEndpointSpec is the runtime's HTTP endpoint.
type GPUEndpointSpec struct {
	// port the runtime listens on inside the allocation, 1 to 65535. Default 8080.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// readinessPath is polled (GET, with the connection Secret's apiKey as bearer token) until it
	// answers with a 2xx; only then is the GPU Ready. Default /.
	// +optional
	// +kubebuilder:default="/"
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^/.*`
	ReadinessPath string `json:"readinessPath,omitempty"`
}

// GPUPhase is where the allocation is in its life.
//
// +kubebuilder:validation:Enum=Pending;Provisioning;Starting;Ready;Terminating;Expired;Failed
type GPUPhase string

// The phases of a GPU.
const (
	// GPUPhasePending: nothing leased yet.
	GPUPhasePending GPUPhase = "Pending"
	// GPUPhaseProvisioning: the allocation was requested.
	GPUPhaseProvisioning GPUPhase = "Provisioning"
	// GPUPhaseStarting: the provider runs it, its endpoint is not ready yet.
	GPUPhaseStarting GPUPhase = "Starting"
	// GPUPhaseReady: the readiness path answered with a 2xx.
	GPUPhaseReady GPUPhase = "Ready"
	// GPUPhaseTerminating: the allocation is being released.
	GPUPhaseTerminating GPUPhase = "Terminating"
	// GPUPhaseExpired: maxRuntime passed and the allocation was released.
	GPUPhaseExpired GPUPhase = "Expired"
	// GPUPhaseFailed: leasing or the allocation failed; the Ready condition says why.
	GPUPhaseFailed GPUPhase = "Failed"
)

// GPUStatus is what the operator observed and did. It never holds a credential.
type GPUStatus struct {
	// phase is where the allocation is in its life.
	// +optional
	Phase GPUPhase `json:"phase,omitempty"`

	// instanceID is the provider's identifier of the allocation.
	// +optional
	InstanceID string `json:"instanceID,omitempty"`

	// url is the runtime's HTTP endpoint.
	// +optional
	URL string `json:"url,omitempty"`

	// connectionSecretRef names the Secret with the runtime's url and apiKey (the token made for
	// this allocation, never the provider's key).
	// +optional
	ConnectionSecretRef *corev1.LocalObjectReference `json:"connectionSecretRef,omitempty"`

	// startedAt is when the allocation was requested.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// expiresAt is startedAt + maxRuntime: when the operator releases the allocation.
	// +optional
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`

	// observedGeneration is the metadata.generation the operator last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (upstream's; its reason says where the allocation is: Provisioning,
	// InfrastructureStarting, EndpointNotReady, EndpointReady, Expired, ProvisionFailed, ...) and
	// Degraded (the operator could not write the connection Secret or talk to the provider).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// GPUList is a list of GPU.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type GPUList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the GPUs.
	Items []GPU `json:"items"`
}
