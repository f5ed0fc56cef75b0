package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// AsyncProcessorSpec configures the async-processor, an llm-d-async process that runs only when
// spec.processor.dispatchMode is async. It takes the requests the processor queued in Redis
// (sorted sets, one per InferencePool) and sends them to the inference gateway, admitting them
// through gates (for example a Prometheus query or a concurrency limit). It authenticates to
// Redis with the key redis-url of the credentials Secret.
type AsyncProcessorSpec struct {
	// replicas is accepted for compatibility but has no effect: one async-processor pod runs.
	// Default 1.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// resources are the async-processor container's CPU and memory requests and limits. Unset,
	// the operand's defaults.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.claims) || size(self.claims) == 0",fieldPath=".claims",reason="FieldValueForbidden",message="resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// imagePullPolicy of the async-processor container: Always, Never or IfNotPresent. Unset
	// means Always.
	// +optional
	// +kubebuilder:validation:Enum=Always;Never;IfNotPresent
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// inferenceGateway is where the async-processor sends requests; only its url is used, and
	// each entry of redis.queuesConfig may override it with igwBaseURL. Needed unless
	// redis.queuesConfig is set.
	// +optional
	InferenceGateway *InferenceGatewaySpec `json:"inferenceGateway,omitempty"`

	// concurrency is how many requests the async-processor sends at once. Default 8.
	// +optional
	// +kubebuilder:default=8
	// +kubebuilder:validation:Minimum=1
	Concurrency *int32 `json:"concurrency,omitempty"`

	// drainTimeout is how long a stopping async-processor waits for requests in flight. A
	// duration such as 2m. Default 2m.
	// +optional
	// +kubebuilder:default="2m"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	DrainTimeout string `json:"drainTimeout,omitempty"`

	// resultPollTimeout is how long the processor (not the async-processor) waits for the result
	// of one queued request, for example 30s. Passed to the processor in either dispatch mode.
	// Unset, the processor's default.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	ResultPollTimeout string `json:"resultPollTimeout,omitempty"`

	// redis is the Redis sorted-set queue the async-processor consumes. Required in async mode.
	// +optional
	Redis *AsyncRedisSpec `json:"redis,omitempty"`

	// workerPools are named groups of workers, each admitting requests through its own gate; a
	// queue selects one with workerPoolID.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	WorkerPools []AsyncWorkerPool `json:"workerPools,omitempty"`

	// prometheusURL is the Prometheus the prometheus-* gates query, for example
	// http://prometheus.monitoring.svc:9090.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	PrometheusURL string `json:"prometheusURL,omitempty"`

	// prometheusCacheTTL is how long a gate reuses a Prometheus query result, for example 30s.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	PrometheusCacheTTL string `json:"prometheusCacheTTL,omitempty"`

	// tls is how the async-processor verifies the inference gateway's certificate and which
	// client certificate it presents.
	// +optional
	TLS *AsyncTLSSpec `json:"tls,omitempty"`

	// transformConfig rewrites request bodies before they are sent.
	// +optional
	TransformConfig *AsyncTransformConfig `json:"transformConfig,omitempty"`

	// modelServerMonitor, when enabled, creates a PodMonitor that scrapes the model servers'
	// metrics (for the gates that read them through Prometheus). Needs the Prometheus Operator.
	// +optional
	ModelServerMonitor *AsyncModelServerMonitorSpec `json:"modelServerMonitor,omitempty"`
}

// AsyncRedisSpec is the Redis sorted-set queue of the async-processor. Set, it turns the queue
// on. Either one queue (requestPathURL, gateType, gateParams, with the URL of
// asyncConfig.inferenceGateway) or a list of queues (queuesConfig), not both.
type AsyncRedisSpec struct {
	// requestPathURL is appended to the gateway URL for every request. Default /v1/completions.
	// +optional
	// +kubebuilder:default="/v1/completions"
	// +kubebuilder:validation:MaxLength=2048
	RequestPathURL string `json:"requestPathURL,omitempty"`

	// pollIntervalMs is how often, in milliseconds, the queues are polled. Default 1000; at least
	// 100.
	// +optional
	// +kubebuilder:default=1000
	// +kubebuilder:validation:Minimum=100
	PollIntervalMs *int32 `json:"pollIntervalMs,omitempty"`

	// batchSize is how many requests one poll takes. Default 10.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	BatchSize *int32 `json:"batchSize,omitempty"`

	// gateType is the gate of the single queue: redis, prometheus-query, prometheus-budget,
	// prometheus-saturation, endpoint-scrape, redis-quota or local-max-concurrency. Not with
	// queuesConfig (set gateType per queue there).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	GateType string `json:"gateType,omitempty"`

	// gateParams are the parameters of gateType, for example query and fallback for
	// prometheus-query.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	GateParams map[string]string `json:"gateParams,omitempty"`

	// queuesConfig lists the queues to consume, each with its own gateway URL, path and gate.
	// The processor writes each model's requests to llm-d-async:requests:<inferencePoolName>, so
	// name the queues after the pools of spec.processor.modelGateways.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	QueuesConfig []AsyncQueueConfig `json:"queuesConfig,omitempty"`
}

// AsyncQueueConfig is one Redis queue of the async-processor.
type AsyncQueueConfig struct {
	// name is the queue's Redis key, for example llm-d-async:requests:<inferencePoolName>.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// workerPoolID is the name of the workerPools entry whose workers serve this queue.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	WorkerPoolID string `json:"workerPoolID,omitempty"`

	// igwBaseURL is the gateway URL for this queue's requests, instead of
	// asyncConfig.inferenceGateway.url.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	IGWBaseURL string `json:"igwBaseURL,omitempty"`

	// requestPathURL is appended to the gateway URL for this queue's requests, instead of
	// redis.requestPathURL.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	RequestPathURL string `json:"requestPathURL,omitempty"`

	// gateType is this queue's gate (see redis.gateType for the types).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	GateType string `json:"gateType,omitempty"`

	// gateParams are the parameters of this queue's gate.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	GateParams map[string]string `json:"gateParams,omitempty"`
}

// AsyncWorkerPool is a named group of async-processor workers.
type AsyncWorkerPool struct {
	// name identifies the pool; queues refer to it with workerPoolID.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// workers is how many requests the pool sends at once. Unset, the async-processor's default.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Workers int32 `json:"workers,omitempty"`

	// gateType is the pool's gate (see redis.gateType for the types).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	GateType string `json:"gateType,omitempty"`

	// gateParams are the parameters of the pool's gate, for example limit for
	// local-max-concurrency.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	GateParams map[string]string `json:"gateParams,omitempty"`
}

// AsyncTLSSpec is the async-processor's TLS towards the inference gateway, from keys of a
// Secret mounted at /etc/tls.
type AsyncTLSSpec struct {
	// secretName is the Secret, in the object's namespace, holding the CA and client certificate.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName,omitempty"`

	// insecureSkipVerify skips verification of the gateway's certificate. Default false; for
	// test setups only.
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`

	// caCertKey is the key of secretName holding the CA bundle that verifies the gateway.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CACertKey string `json:"caCertKey,omitempty"`

	// certKey is the key of secretName holding the client certificate.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	CertKey string `json:"certKey,omitempty"`

	// keyKey is the key of secretName holding the client certificate's private key.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	KeyKey string `json:"keyKey,omitempty"`
}

// AsyncTransformConfig lists the rewrites applied to request bodies.
type AsyncTransformConfig struct {
	// requestTransforms are applied in order to every request body.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	RequestTransforms []AsyncRequestTransform `json:"requestTransforms,omitempty"`
}

// AsyncRequestTransform is one rewrite of request bodies.
type AsyncRequestTransform struct {
	// name identifies the transform.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// type is the kind of rewrite the async-processor applies.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Type string `json:"type"`

	// parameters of the rewrite. A value that parses as JSON other than a string (a number,
	// true, an object) is passed on as that JSON value.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Parameters map[string]string `json:"parameters,omitempty"`
}

// AsyncModelServerMonitorSpec is a PodMonitor for the model servers behind the gateway.
type AsyncModelServerMonitorSpec struct {
	// enabled creates the PodMonitor. Default false.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// selector is labels the model server pods carry: added to the default selector
	// llm-d.ai/role: decode (a label named here takes the value given here), as upstream's
	// chart merges them.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Selector map[string]string `json:"selector,omitempty"`

	// port is the name of the model server pods' metrics port. Default modelserver.
	// +optional
	// +kubebuilder:default="modelserver"
	// +kubebuilder:validation:MaxLength=253
	Port string `json:"port,omitempty"`

	// path is the metrics path. Default /metrics.
	// +optional
	// +kubebuilder:default="/metrics"
	// +kubebuilder:validation:MaxLength=2048
	Path string `json:"path,omitempty"`

	// interval is the scrape interval, for example 15s (the default).
	// +optional
	// +kubebuilder:default="15s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Interval string `json:"interval,omitempty"`
}
