package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
)

// Dispatch modes for spec.processor.dispatchMode.
const (
	// DispatchModeSync: the processor calls the inference gateway over HTTP itself.
	DispatchModeSync = "sync"
	// DispatchModeAsync: the processor queues requests in Redis, one queue per InferencePool, and
	// the async-processor sends them on.
	DispatchModeAsync = "async"
)

// The processor's concurrency limits when spec.processor.config.concurrency leaves them unset.
// The cross-field rules compare effective values, because the processor checks its final
// configuration, defaults included, at start-up.
const (
	DefaultGlobalConcurrency      = 100
	DefaultPerEndpointConcurrency = 10
	DefaultAIMDMin                = 5
)

// The orphan-recovery durations when the CR leaves them unset (upstream's chart values
// processor.config.heartbeatInterval and gc.config.reconciler.interval, which are also the
// programs' own defaults). The heartbeat rule compares effective values, as the reconciler
// acts on them.
const (
	DefaultHeartbeatInterval  = "5m"
	DefaultReconcilerInterval = "60m"
)

// ProcessorSpec is how the processor runs and where it sends inference requests.
//
// The rules below (after the first, which is upstream's) are checks the processor and the
// async-processor chart make at start-up; upstream accepted such objects and the processor then
// crash-looped. Each names the field to fix. CRD validation ratcheting (on by default since
// Kubernetes 1.30, GA in 1.33) keeps an object stored before a rule existed updatable as long as
// the update leaves spec.processor unchanged; the operator reports such objects with
// Ready=False, reason ValidationFailed (see ValidateSpec).
//
// +kubebuilder:validation:XValidation:rule="!(has(self.dispatchMode) && self.dispatchMode == 'async') || has(self.asyncConfig)",fieldPath=".asyncConfig",reason="FieldValueRequired",message="spec.processor.asyncConfig is required when spec.processor.dispatchMode is async"
// +kubebuilder:validation:XValidation:rule="has(self.globalInferenceGateway) || (has(self.modelGateways) && size(self.modelGateways) > 0)",reason="FieldValueRequired",message="spec.processor needs an inference gateway: set spec.processor.globalInferenceGateway or spec.processor.modelGateways"
// +kubebuilder:validation:XValidation:rule="!(has(self.globalInferenceGateway) && has(self.modelGateways) && size(self.modelGateways) > 0)",fieldPath=".globalInferenceGateway",reason="FieldValueForbidden",message="spec.processor.globalInferenceGateway and spec.processor.modelGateways are mutually exclusive: keep one"
// +kubebuilder:validation:XValidation:rule="(has(self.dispatchMode) && self.dispatchMode == 'async') || !has(self.globalInferenceGateway) || (has(self.globalInferenceGateway.url) && size(self.globalInferenceGateway.url) > 0)",fieldPath=".globalInferenceGateway.url",reason="FieldValueRequired",message="spec.processor.globalInferenceGateway.url is required when spec.processor.dispatchMode is sync: the processor sends every request there"
// +kubebuilder:validation:XValidation:rule="(has(self.dispatchMode) && self.dispatchMode == 'async') || !has(self.modelGateways) || self.modelGateways.all(m, has(self.modelGateways[m].url) && size(self.modelGateways[m].url) > 0)",fieldPath=".modelGateways",reason="FieldValueRequired",message="every spec.processor.modelGateways entry needs a url when spec.processor.dispatchMode is sync: the processor sends that model's requests there"
// +kubebuilder:validation:XValidation:rule="!(has(self.dispatchMode) && self.dispatchMode == 'async' && has(self.globalInferenceGateway))",fieldPath=".globalInferenceGateway",reason="FieldValueForbidden",message="spec.processor.globalInferenceGateway is not supported when spec.processor.dispatchMode is async: list each model in spec.processor.modelGateways with its inferencePoolName"
// +kubebuilder:validation:XValidation:rule="!(has(self.dispatchMode) && self.dispatchMode == 'async') || !has(self.modelGateways) || self.modelGateways.all(m, has(self.modelGateways[m].inferencePoolName) && size(self.modelGateways[m].inferencePoolName) > 0)",fieldPath=".modelGateways",reason="FieldValueRequired",message="every spec.processor.modelGateways entry needs an inferencePoolName when spec.processor.dispatchMode is async: the processor queues that model's requests for that pool"
// +kubebuilder:validation:XValidation:rule="!(has(self.dispatchMode) && self.dispatchMode == 'async') || !has(self.modelGateways) || self.modelGateways.map(m, self.modelGateways[m].?inferencePoolName.orValue(\"\")).all(pool, pool == \"\" || self.modelGateways.exists_one(m, self.modelGateways[m].?inferencePoolName.orValue(\"\") == pool))",fieldPath=".modelGateways",reason="FieldValueInvalid",message="spec.processor.modelGateways entries must not share an inferencePoolName when spec.processor.dispatchMode is async: a pool's queue serves exactly one model"
// +kubebuilder:validation:XValidation:rule="!(has(self.dispatchMode) && self.dispatchMode == 'async') || !has(self.asyncConfig) || has(self.asyncConfig.redis)",fieldPath=".asyncConfig.redis",reason="FieldValueRequired",message="spec.processor.asyncConfig.redis is required when spec.processor.dispatchMode is async: the async-processor reads its queues from Redis"
// +kubebuilder:validation:XValidation:rule="!(has(self.dispatchMode) && self.dispatchMode == 'async') || !has(self.asyncConfig) || (has(self.asyncConfig.inferenceGateway) && has(self.asyncConfig.inferenceGateway.url) && size(self.asyncConfig.inferenceGateway.url) > 0) || (has(self.asyncConfig.redis) && has(self.asyncConfig.redis.queuesConfig) && size(self.asyncConfig.redis.queuesConfig) > 0)",fieldPath=".asyncConfig",reason="FieldValueRequired",message="spec.processor.dispatchMode async needs spec.processor.asyncConfig.inferenceGateway.url or spec.processor.asyncConfig.redis.queuesConfig: the async-processor must know where to send requests"
// +kubebuilder:validation:XValidation:rule="!(has(self.dispatchMode) && self.dispatchMode == 'async') || !has(self.asyncConfig) || !has(self.asyncConfig.redis) || !(has(self.asyncConfig.redis.gateType) && size(self.asyncConfig.redis.gateType) > 0 && has(self.asyncConfig.redis.queuesConfig) && size(self.asyncConfig.redis.queuesConfig) > 0)",fieldPath=".asyncConfig.redis.gateType",reason="FieldValueForbidden",message="spec.processor.asyncConfig.redis.gateType cannot be combined with spec.processor.asyncConfig.redis.queuesConfig: set gateType on each queue instead"
type ProcessorSpec struct {
	// replicas is the number of processor pods. Default 1. 0 stops batch processing; the Ready
	// condition is then False.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// resources are the processor container's CPU and memory requests and limits. Unset, the
	// operand's defaults.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.claims) || size(self.claims) == 0",fieldPath=".claims",reason="FieldValueForbidden",message="resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// imagePullPolicy of the processor container: Always, Never or IfNotPresent. Unset means
	// Always.
	// +optional
	// +kubebuilder:validation:Enum=Always;Never;IfNotPresent
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// dispatchMode is how requests reach the model servers. sync (the default): the processor
	// sends each request to globalInferenceGateway.url, or to the url of the model's
	// modelGateways entry. async: the processor queues each request in Redis for the
	// InferencePool named by the model's modelGateways entry, and the async-processor (configured
	// by asyncConfig) sends it on; globalInferenceGateway is then not allowed.
	// +optional
	// +kubebuilder:validation:Enum=sync;async
	// +kubebuilder:default=sync
	DispatchMode string `json:"dispatchMode,omitempty"`

	// globalInferenceGateway is the one endpoint that serves every model (sync mode only).
	// Mutually exclusive with modelGateways.
	// +optional
	GlobalInferenceGateway *InferenceGatewaySpec `json:"globalInferenceGateway,omitempty"`

	// modelGateways is bounded (upstream has no bound) for the rule that no two models share a
	// pool, which compares every entry with every other: the API server refuses a CRD whose
	// rules may cost too much (at 512 entries this rule's estimate is 3 times the limit), and the
	// rule is slow to evaluate (in this package's tests, 128 entries take about 0.75 s, 256 about
	// 2.5 s). A batch gateway routes a handful of models; many models behind one endpoint is
	// globalInferenceGateway.

	// modelGateways maps each model name, as clients write it in their requests, to the endpoint
	// that serves it: its url in sync mode, its inferencePoolName in async mode (one pool per
	// model). A request for a model that is not listed fails. Mutually exclusive with
	// globalInferenceGateway. At most 128 models.
	// +optional
	// +kubebuilder:validation:MaxProperties=128
	ModelGateways map[string]InferenceGatewaySpec `json:"modelGateways,omitempty"`

	// asyncConfig configures the async-processor. Required when dispatchMode is async; in sync
	// mode only its resultPollTimeout is used.
	// +optional
	AsyncConfig *AsyncProcessorSpec `json:"asyncConfig,omitempty"`

	// config tunes the processor process (workers, concurrency, expiry).
	// +optional
	Config *ProcessorConfigSpec `json:"config,omitempty"`
}

// InferenceGatewaySpec is one inference endpoint the processor (or the async-processor) sends
// requests to, and how it retries them. The request timeout and retry fields are always passed
// to the processor, with their defaults when unset.
//
// +kubebuilder:validation:XValidation:rule="!has(self.tlsInsecureSkipVerify) || !self.tlsInsecureSkipVerify",fieldPath=".tlsInsecureSkipVerify",reason="FieldValueForbidden",message="tlsInsecureSkipVerify must not be true: trust the endpoint's CA instead (tlsCACertFile; for the async-processor, asyncConfig.tls)"
type InferenceGatewaySpec struct {
	// url is the endpoint's base URL, for example http://inference-gateway.llm.svc:8000.
	// Required in sync mode. Under asyncConfig.inferenceGateway it is where the async-processor
	// sends queued requests.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	URL string `json:"url,omitempty"`

	// inferencePoolName is the InferencePool that serves the model (async mode): its requests
	// are queued in Redis as llm-d-async:requests:<inferencePoolName>. Required on every
	// modelGateways entry in async mode, and different for each model.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	InferencePoolName string `json:"inferencePoolName,omitempty"`

	// requestTimeout is the longest wait for one inference response, for example 5m. A duration
	// with unit ms, s, m or h. Unset means 5m.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	RequestTimeout string `json:"requestTimeout,omitempty"`

	// maxRetries is how many times a request that failed with a transient error is retried.
	// Unset means 3; 0 disables retries.
	// +optional
	MaxRetries *int32 `json:"maxRetries,omitempty"`

	// initialBackoff is the wait before the first retry, doubled on each further retry. Unset
	// means 1s.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	InitialBackoff string `json:"initialBackoff,omitempty"`

	// maxBackoff is the longest wait between two retries. Unset means 60s.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	MaxBackoff string `json:"maxBackoff,omitempty"`

	// inferenceObjective is sent as the x-gateway-inference-objective header, so that a Gateway
	// API Inference Extension gateway applies that InferenceObjective. Unset, no header.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	InferenceObjective string `json:"inferenceObjective,omitempty"`

	// tlsInsecureSkipVerify is refused when true: the processor must verify the endpoint's
	// certificate. It exists for compatibility with YAML that sets it to false.
	// +optional
	TLSInsecureSkipVerify bool `json:"tlsInsecureSkipVerify,omitempty"`

	// tlsCACertFile is the path, inside the processor container, of a CA bundle that verifies
	// the endpoint's certificate. The credentials Secret is mounted at /etc/.secrets, so a key
	// ca.crt of that Secret is /etc/.secrets/ca.crt.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	TLSCACertFile string `json:"tlsCACertFile,omitempty"`

	// tlsClientCertFile is the path, inside the processor container, of the client certificate
	// for mutual TLS. Set together with tlsClientKeyFile.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	TLSClientCertFile string `json:"tlsClientCertFile,omitempty"`

	// tlsClientKeyFile is the path, inside the processor container, of the client certificate's
	// private key.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	TLSClientKeyFile string `json:"tlsClientKeyFile,omitempty"`
}

// ProcessorConfigSpec tunes the processor process. A zero or unset value keeps the operand's
// default.
//
// +kubebuilder:validation:XValidation:rule="!has(self.heartbeatInterval) || !self.heartbeatInterval.matches('^([0-9]{1,6}([.][0-9]+)?(ms|s|m|h))+$') || duration(self.heartbeatInterval) > duration('0s')",fieldPath=".heartbeatInterval",reason="FieldValueInvalid",message="spec.processor.config.heartbeatInterval must be longer than 0s: the processor refuses to start with 0"
type ProcessorConfigSpec struct {
	// numWorkers is how many batch jobs one processor pod works on at once. 0 or unset means 20.
	// +optional
	NumWorkers int32 `json:"numWorkers,omitempty"`

	// concurrency limits the inference requests in flight.
	// +optional
	Concurrency *ConcurrencyConfig `json:"concurrency,omitempty"`

	// defaultOutputExpirationSeconds is how long output and error files are kept when the batch
	// sets no expiry. 0 or unset means 7776000 (90 days).
	// +optional
	DefaultOutputExpirationSeconds int64 `json:"defaultOutputExpirationSeconds,omitempty"`

	// progressTTLSeconds is how long a batch's progress record is kept in Redis. 0 or unset means
	// 86400 (one day).
	// +optional
	ProgressTTLSeconds int64 `json:"progressTTLSeconds,omitempty"`

	// sendFairnessHeader makes the processor send the x-gateway-inference-fairness-id header
	// with the tenant, so that the inference gateway can share capacity fairly between tenants.
	// Unset, the processor's default (no header).
	// +optional
	SendFairnessHeader *bool `json:"sendFairnessHeader,omitempty"`

	// enablePprof serves Go's /debug/pprof endpoints on the processor's metrics port. Default
	// false.
	// +optional
	EnablePprof bool `json:"enablePprof,omitempty"`

	// heartbeatInterval is how often the processor refreshes the in-flight record of each job it
	// runs (upstream's processor.config.heartbeatInterval, config.yaml heartbeat_interval). The
	// gc's orphan reconciler takes a job whose record is older than its interval for orphaned,
	// so this must be shorter than spec.gc.config.reconciler.interval while the reconciler is
	// enabled. A duration such as 10s or 5m, longer than 0s: numbers of at most 6 digits and
	// units ms, s, m or h. Default 5m.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^([0-9]{1,6}(\.[0-9]+)?(ms|s|m|h))+$`
	HeartbeatInterval string `json:"heartbeatInterval,omitempty"`

	// logging sets the processor's log verbosity.
	// +optional
	Logging *LoggingConfig `json:"logging,omitempty"`
}

// ConcurrencyConfig limits the processor's inference requests in flight. The processor refuses
// to start when perEndpoint exceeds global, or, with AIMD on, when aimd.min exceeds perEndpoint;
// the rules below reject such objects, comparing the values the processor will use (the
// defaults for unset fields).
//
// +kubebuilder:validation:XValidation:rule="(has(self.perEndpoint) ? self.perEndpoint : 10) <= (has(self.global) ? self.global : 100)",fieldPath=".perEndpoint",reason="FieldValueInvalid",message="spec.processor.config.concurrency.perEndpoint must not exceed spec.processor.config.concurrency.global (unset, perEndpoint is 10 and global 100)"
// +kubebuilder:validation:XValidation:rule="(has(self.aimd) && has(self.aimd.enabled) && !self.aimd.enabled) || (has(self.aimd) && has(self.aimd.min) ? self.aimd.min : 5) <= (has(self.perEndpoint) ? self.perEndpoint : 10)",fieldPath=".aimd.min",reason="FieldValueInvalid",message="spec.processor.config.concurrency.aimd.min must not exceed spec.processor.config.concurrency.perEndpoint while AIMD is enabled (unset, aimd.min is 5 and perEndpoint 10)"
type ConcurrencyConfig struct {
	// global caps the inference requests in flight across all workers of one processor pod.
	// Unset means 100.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Global int32 `json:"global,omitempty"`

	// perEndpoint is the starting and highest number of requests in flight to one inference
	// endpoint; AIMD lowers it when the endpoint is overloaded. At most global. Unset means 10.
	// +optional
	// +kubebuilder:validation:Minimum=1
	PerEndpoint int32 `json:"perEndpoint,omitempty"`

	// recovery caps how many interrupted jobs a starting processor recovers at once. Unset
	// means 5.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Recovery int32 `json:"recovery,omitempty"`

	// aimd adapts each endpoint's limit to its load (additive increase, multiplicative decrease).
	// +optional
	AIMD *AIMDConfig `json:"aimd,omitempty"`
}

// AIMDConfig is the additive-increase/multiplicative-decrease control of each endpoint's
// concurrency: the limit drops by backoffFactor when the endpoint answers 429 or 5xx, and grows
// by additiveIncrease after a window of successes, between min and perEndpoint.
type AIMDConfig struct {
	// enabled turns adaptive concurrency on. Unset means true; false keeps every endpoint's
	// limit at perEndpoint.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// min is the lowest limit AIMD lowers an endpoint to. At most perEndpoint. Unset means 5.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Min int32 `json:"min,omitempty"`

	// backoffFactor multiplies an endpoint's limit on overload: a decimal between 0 and 1
	// written as a string, for example "0.5" (the default).
	// +optional
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^0\.[0-9]+$`
	BackoffFactor string `json:"backoffFactor,omitempty"`

	// additiveIncrease is added to an endpoint's limit after a window of successes. Unset means 1.
	// +optional
	// +kubebuilder:validation:Minimum=1
	AdditiveIncrease int32 `json:"additiveIncrease,omitempty"`
}
