package v1alpha1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	networkpolicyv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1"
)

// LLMBatchGateway runs one instance of the llm-d batch gateway in its own namespace: an
// OpenAI-compatible Files and Batches API (the apiserver), a worker pool that sends every request
// line of a batch to an inference endpoint (the processor), a garbage collector for expired jobs
// and files (gc) and, with spec.processor.dispatchMode async, an llm-d-async process that feeds
// per-InferencePool queues to the inference gateway (the async-processor). Each component is a
// Deployment named after the object.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=llmbatchgateways,scope=Namespaced,singular=llmbatchgateway,shortName=lbg
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="API-Ready",type=integer,JSONPath=`.status.componentStatus.apiServer.readyReplicas`
// +kubebuilder:printcolumn:name="Proc-Ready",type=integer,JSONPath=`.status.componentStatus.processor.readyReplicas`
// +kubebuilder:printcolumn:name="GC-Ready",type=integer,JSONPath=`.status.componentStatus.gc.readyReplicas`
// +kubebuilder:printcolumn:name="Async-Ready",type=integer,JSONPath=`.status.componentStatus.asyncProcessor.readyReplicas`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63 && !self.metadata.name.contains('.')",message="metadata.name must be a DNS label (at most 63 characters, no dots): it is the app.kubernetes.io/instance label of the gateway's objects and starts its Services' names"
type LLMBatchGateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the gateway the user asks for: where its credentials, metadata database and files
	// are, how each component runs, and which inference endpoints the processor calls.
	// +required
	Spec LLMBatchGatewaySpec `json:"spec"`

	// status reports what the operator observed and did: conditions, the replica counts of each
	// component and the Deployment generations it last applied.
	// +optional
	Status LLMBatchGatewayStatus `json:"status,omitempty"`
}

// Database backends for spec.dbBackend.
const (
	DBBackendPostgreSQL = "postgresql"
	DBBackendRedis      = "redis"
	DBBackendValkey     = "valkey"
)

// LLMBatchGatewaySpec is the desired state of one batch gateway instance.
//
// +kubebuilder:validation:XValidation:rule="has(self.secretRef.name) && size(self.secretRef.name) > 0",fieldPath=".secretRef.name",reason="FieldValueRequired",message="spec.secretRef.name must name the Secret that holds the gateway's credentials"
// +kubebuilder:validation:XValidation:rule="(has(self.gc.config) && has(self.gc.config.reconciler) && has(self.gc.config.reconciler.enabled) && !self.gc.config.reconciler.enabled) || (has(self.processor.config) && has(self.processor.config.heartbeatInterval) && !self.processor.config.heartbeatInterval.matches('^([0-9]{1,6}([.][0-9]+)?(ms|s|m|h))+$')) || (has(self.gc.config) && has(self.gc.config.reconciler) && has(self.gc.config.reconciler.interval) && !self.gc.config.reconciler.interval.matches('^([0-9]{1,6}([.][0-9]+)?(ms|s|m|h))+$')) || duration(has(self.processor.config) && has(self.processor.config.heartbeatInterval) ? self.processor.config.heartbeatInterval : '5m') < duration(has(self.gc.config) && has(self.gc.config.reconciler) && has(self.gc.config.reconciler.interval) ? self.gc.config.reconciler.interval : '60m')",fieldPath=".processor.config.heartbeatInterval",reason="FieldValueInvalid",message="spec.processor.config.heartbeatInterval must be shorter than spec.gc.config.reconciler.interval while the reconciler is enabled (unset, 5m and 60m): the reconciler takes a running job whose last heartbeat is older than its interval for orphaned; lower the heartbeat or raise the interval"
type LLMBatchGatewaySpec struct {
	// secretRef names the Secret with the gateway's credentials: the database URLs (key
	// redis-url for the exchange and a Redis/Valkey metadata database, postgresql-url for
	// PostgreSQL), s3-secret-access-key for S3, and any keys the inference gateways need. Every
	// component mounts it read-only. Without a namespace (or with the object's own) the Secret is
	// used in place. With another namespace, a Gateway API ReferenceGrant in that namespace must
	// allow LLMBatchGateways of this namespace to reference it; the Secret is then copied into
	// this namespace as <name>-credentials and the copy is what the pods mount. Treat it as
	// immutable: to use another Secret, delete and re-create the LLMBatchGateway.
	// +required
	SecretRef corev1.SecretReference `json:"secretRef"`

	// dbBackend is the database that stores batch and file metadata: postgresql (the default),
	// redis or valkey. The job exchange (queues, events, progress) always uses Redis/Valkey,
	// whatever this says.
	// +optional
	// +kubebuilder:validation:Enum=redis;postgresql;valkey
	// +kubebuilder:default=postgresql
	DBBackend string `json:"dbBackend,omitempty"`

	// redis sets TLS for every component's Redis/Valkey client (exchange, and metadata when
	// dbBackend is redis or valkey). Unset, the clients connect without TLS.
	// +optional
	Redis *RedisClientSpec `json:"redis,omitempty"`

	// fileStorage is where batch input, output and error files are kept: an S3-compatible
	// bucket (s3) or a PersistentVolumeClaim mounted into the pods (fs). Exactly one of the two.
	// +required
	FileStorage *FileStorageSpec `json:"fileStorage"`

	// apiServer runs the HTTP API (/v1/files, /v1/batches) and its health and metrics port.
	// +required
	APIServer APIServerSpec `json:"apiServer"`

	// processor runs the workers that take batch jobs from the exchange and send each request
	// line to an inference endpoint, then write the output file.
	// +required
	Processor ProcessorSpec `json:"processor"`

	// gc runs the garbage collector that deletes expired jobs and files.
	// +required
	GC GCSpec `json:"gc"`

	// monitoring, when enabled, creates a ServiceMonitor for the apiserver and PodMonitors for the
	// processor, the gc and the async-processor, labelled monitoring.opendatahub.io/scrape=true.
	// Needs the Prometheus Operator's CRDs.
	// +optional
	Monitoring *MonitoringSpec `json:"monitoring,omitempty"`

	// grafana, when enabled, creates ConfigMaps holding the gateway's Grafana dashboards.
	// +optional
	Grafana *GrafanaSpec `json:"grafana,omitempty"`

	// tls, when enabled, makes the apiserver serve HTTPS with a certificate from an existing
	// Secret or from cert-manager. Unset, the apiserver serves plain HTTP.
	// +optional
	TLS *TLSSpec `json:"tls,omitempty"`

	// httpRoute, when enabled, exposes the apiserver through a Gateway API HTTPRoute.
	// +optional
	HTTPRoute *HTTPRouteSpec `json:"httpRoute,omitempty"`

	// otel sends OpenTelemetry traces of every component to an OTLP endpoint. Unset, no traces.
	// +optional
	OTEL *OTELSpec `json:"otel,omitempty"`

	// prometheusRule, when enabled, creates PrometheusRules with the gateway's alerts. Needs the
	// Prometheus Operator's CRDs.
	// +optional
	PrometheusRule *PrometheusRuleSpec `json:"prometheusRule,omitempty"`

	// imagePullSecrets are added to every batch gateway pod, for registries that need
	// credentials. The async-processor gets them through its ServiceAccount.
	// +optional
	// +kubebuilder:validation:MaxItems=20
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// networkPolicy isolates the gateway's pods for ingress, one NetworkPolicy per component
	// named like its Deployment: the apiserver's HTTP API port from the peers named (any
	// address by default), the apiserver's observability port and the processor's, gc's and
	// async-processor's metrics ports from the monitoring namespace, nothing else (the
	// processor, gc and async-processor serve no one but Prometheus). An HTTPRoute's Gateway
	// API implementation connects to the API port, so a from that is set must select it.
	// Egress stays open: the databases, Redis, object store, inference gateways and OTLP
	// collector are wherever the spec and the credentials Secret say. Unset, none is made, as
	// upstream makes none.
	// +optional
	NetworkPolicy *networkpolicyv1alpha1.ServingNetworkPolicy `json:"networkPolicy,omitempty"`
}

// RedisClientSpec is the TLS setting of the components' Redis/Valkey clients.
type RedisClientSpec struct {
	// enableTLS makes the clients connect to Redis/Valkey over TLS. Default false.
	// +optional
	EnableTLS bool `json:"enableTLS,omitempty"`

	// insecure skips verification of the Redis/Valkey server certificate when enableTLS is set.
	// Default false; for test setups only.
	// +optional
	Insecure bool `json:"insecure,omitempty"`
}

// FileStorageSpec selects the file storage backend and how transient errors are retried.
//
// +kubebuilder:validation:XValidation:rule="has(self.s3) != has(self.fs)",message="set exactly one of spec.fileStorage.s3 and spec.fileStorage.fs"
type FileStorageSpec struct {
	// s3 stores files in one S3-compatible bucket (AWS, MinIO, Ceph, ...), each tenant under its
	// own key prefix. Mutually exclusive with fs.
	// +optional
	S3 *S3StorageSpec `json:"s3,omitempty"`

	// fs stores files on an existing PersistentVolumeClaim mounted into the pods. More than one
	// replica, or pods on several nodes, need a ReadWriteMany claim. Mutually exclusive with s3.
	// +optional
	FS *FSStorageSpec `json:"fs,omitempty"`

	// retry tunes how the components retry failed file storage operations. Unset, the
	// operand's own defaults apply.
	// +optional
	Retry *FileRetrySpec `json:"retry,omitempty"`
}

// S3StorageSpec is an S3-compatible bucket. The secret access key is the key
// s3-secret-access-key of the Secret named by spec.secretRef.
type S3StorageSpec struct {
	// region is the bucket's region, for example us-east-1. Unset, the S3 client's default.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Region string `json:"region,omitempty"`

	// bucket is the one bucket that holds every tenant's files (each tenant under its own key
	// prefix).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Bucket string `json:"bucket"`

	// endpoint is the S3 API URL for stores other than AWS, for example
	// http://minio.minio.svc:9000. Unset, the AWS endpoint of the region.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	Endpoint string `json:"endpoint,omitempty"`

	// accessKeyId is the access key ID. It is not secret; the matching secret key comes from the
	// credentials Secret.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	AccessKeyID string `json:"accessKeyId,omitempty"`

	// prefix is prepended to the key of every object the gateway writes, to share a bucket with
	// other users.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Prefix string `json:"prefix,omitempty"`

	// usePathStyle addresses the bucket as <endpoint>/<bucket> instead of
	// <bucket>.<endpoint>, which MinIO and other S3-compatible stores usually need. Default false.
	// +optional
	UsePathStyle bool `json:"usePathStyle,omitempty"`

	// autoCreateBucket makes the components create the bucket at start-up when it does not
	// exist. Unset means true.
	// +optional
	AutoCreateBucket *bool `json:"autoCreateBucket,omitempty"`
}

// FSStorageSpec is a PersistentVolumeClaim that holds the files.
//
// +kubebuilder:validation:XValidation:rule="!has(self.claimName) || size(self.claimName) > 0",fieldPath=".claimName",reason="FieldValueRequired",message="spec.fileStorage.fs.claimName must name an existing PersistentVolumeClaim"
type FSStorageSpec struct {
	// basePath is where the claim is mounted in the pods and where files are written. Unset, the
	// operand's default directory.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	BasePath string `json:"basePath,omitempty"`

	// claimName is the name of an existing PersistentVolumeClaim in the object's namespace.
	// +required
	// +kubebuilder:validation:MaxLength=253
	ClaimName string `json:"claimName"`
}

// FileRetrySpec is the retry policy for file storage operations.
type FileRetrySpec struct {
	// maxRetries is how many times a failed operation is retried. Default 3; 0 disables retries.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	MaxRetries *int32 `json:"maxRetries,omitempty"`

	// initialBackoff is the wait before the first retry, doubled on each further retry up to
	// maxBackoff. A duration such as 500ms, 1s or 1m30s. Default 1s.
	// +optional
	// +kubebuilder:default="1s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	InitialBackoff string `json:"initialBackoff,omitempty"`

	// maxBackoff is the longest wait between two retries. A duration such as 10s. Default 10s.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	MaxBackoff string `json:"maxBackoff,omitempty"`
}

// APIServerSpec is how the apiserver component runs.
type APIServerSpec struct {
	// replicas is the number of apiserver pods. Default 1. 0 stops the API; the Ready condition
	// is then False.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// resources are the apiserver container's CPU and memory requests and limits. Unset, the
	// operand's defaults.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.claims) || size(self.claims) == 0",fieldPath=".claims",reason="FieldValueForbidden",message="resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// imagePullPolicy of the apiserver container: Always, Never or IfNotPresent. Unset means
	// Always.
	// +optional
	// +kubebuilder:validation:Enum=Always;Never;IfNotPresent
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// config tunes the apiserver process (ports, timeouts, limits of the batch and file APIs).
	// +optional
	Config *APIServerConfigSpec `json:"config,omitempty"`
}

// APIServerConfigSpec tunes the apiserver process. A zero or unset value keeps the operand's
// default.
type APIServerConfigSpec struct {
	// port is the TCP port of the HTTP API (Service port http). Unset means 8000.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// observabilityPort is the TCP port of /health, /ready and /metrics (Service port
	// observability). Unset means 8081.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	ObservabilityPort int32 `json:"observabilityPort,omitempty"`

	// readTimeoutSeconds is the longest time to read a whole request, upload included. 0 or unset
	// means 900.
	// +optional
	ReadTimeoutSeconds int32 `json:"readTimeoutSeconds,omitempty"`

	// writeTimeoutSeconds is the longest time to write a response. 0 or unset means 120.
	// +optional
	WriteTimeoutSeconds int32 `json:"writeTimeoutSeconds,omitempty"`

	// idleTimeoutSeconds is how long an idle keep-alive connection stays open. 0 or unset means
	// 90.
	// +optional
	IdleTimeoutSeconds int32 `json:"idleTimeoutSeconds,omitempty"`

	// inputHeaders maps the apiserver's inputs to request headers; for example tenant:
	// X-MaaS-Username takes the tenant from that header. Merged with the default
	// {tenant: X-MaaS-Username}.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	InputHeaders map[string]string `json:"inputHeaders,omitempty"`

	// batchAPI tunes /v1/batches.
	// +optional
	BatchAPI *BatchAPIConfig `json:"batchAPI,omitempty"`

	// fileAPI tunes /v1/files.
	// +optional
	FileAPI *FileAPIConfig `json:"fileAPI,omitempty"`

	// enablePprof serves Go's /debug/pprof endpoints on the observability port. Default false.
	// +optional
	EnablePprof bool `json:"enablePprof,omitempty"`

	// logging sets the apiserver's log verbosity.
	// +optional
	Logging *LoggingConfig `json:"logging,omitempty"`
}

// BatchAPIConfig tunes the batch API.
type BatchAPIConfig struct {
	// eventTTLSeconds is how long a batch's events are kept. 0 or unset means 2592000 (30 days).
	// +optional
	EventTTLSeconds int32 `json:"eventTTLSeconds,omitempty"`

	// passThroughHeaders are the request headers forwarded with every inference request of a
	// batch. Set, the list replaces the default [Authorization].
	// +optional
	// +kubebuilder:validation:items:MaxLength=256
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=256
	PassThroughHeaders []string `json:"passThroughHeaders,omitempty"`
}

// FileAPIConfig tunes the file API.
type FileAPIConfig struct {
	// defaultExpirationSeconds is how long an uploaded file is kept when the upload sets no
	// expiry. 0 or unset means 7776000 (90 days).
	// +optional
	DefaultExpirationSeconds int64 `json:"defaultExpirationSeconds,omitempty"`

	// maxSizeBytes is the largest file that can be uploaded. 0 or unset means 209715200 (200 MiB).
	// +optional
	MaxSizeBytes int64 `json:"maxSizeBytes,omitempty"`

	// maxLineCount is the most request lines a batch input file may have. 0 or unset means 50000.
	// +optional
	MaxLineCount int64 `json:"maxLineCount,omitempty"`
}

// LoggingConfig is a component's log verbosity.
type LoggingConfig struct {
	// verbosity is the klog verbosity (--v) of the component; higher logs more. 0 or unset
	// means 2.
	// +optional
	Verbosity int32 `json:"verbosity,omitempty"`
}

// GCSpec is how the garbage collector runs.
type GCSpec struct {
	// replicas is the number of gc pods. Default 1. Run at most one: the collectors do not
	// coordinate with each other.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`

	// resources are the gc container's CPU and memory requests and limits. Unset, the operand's
	// defaults.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!has(self.claims) || size(self.claims) == 0",fieldPath=".claims",reason="FieldValueForbidden",message="resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// imagePullPolicy of the gc container: Always, Never or IfNotPresent. Unset means
	// IfNotPresent.
	// +optional
	// +kubebuilder:validation:Enum=Always;Never;IfNotPresent
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`

	// interval is how often the collector looks for expired jobs and files. A duration such as
	// 30m or 1h. Default 30m.
	// +optional
	// +kubebuilder:default="30m"
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Interval string `json:"interval,omitempty"`

	// config tunes the gc process.
	// +optional
	Config *GCConfigSpec `json:"config,omitempty"`
}

// GCConfigSpec tunes the garbage collector.
type GCConfigSpec struct {
	// dryRun makes the collector log what it would delete without deleting anything. Default
	// false.
	// +optional
	DryRun bool `json:"dryRun,omitempty"`

	// maxConcurrency is how many deletions run in parallel. 0 or unset means 10.
	// +optional
	MaxConcurrency int32 `json:"maxConcurrency,omitempty"`

	// reconciler is the orphan reconciler, which recovers batch jobs left in a running state by
	// a processor that stopped (crashed, evicted, scaled down). Unset, enabled every 60m.
	// +optional
	Reconciler *GCReconcilerConfig `json:"reconciler,omitempty"`

	// logging sets the gc's log verbosity.
	// +optional
	Logging *LoggingConfig `json:"logging,omitempty"`
}

// GCReconcilerConfig is the gc's orphan reconciler (upstream's gc.config.reconciler, config.yaml
// reconciler).
type GCReconcilerConfig struct {
	// enabled runs the orphan reconciler. Default true. Off, a job whose processor stopped stays
	// in its state until someone cancels it.
	// +optional
	// +kubebuilder:default=true
	Enabled *bool `json:"enabled,omitempty"`

	// interval is how often the reconciler looks for orphaned jobs, and how old a job's last
	// heartbeat must be for the job to count as orphaned: it must be longer than
	// spec.processor.config.heartbeatInterval while the reconciler is enabled. A duration such as
	// 1m or 60m: numbers of at most 6 digits and units ms, s, m or h. Default 60m.
	// +optional
	// +kubebuilder:default="60m"
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^([0-9]{1,6}(\.[0-9]+)?(ms|s|m|h))+$`
	Interval string `json:"interval,omitempty"`
}

// MonitoringSpec switches Prometheus Operator monitors on.
type MonitoringSpec struct {
	// enabled creates the ServiceMonitor and PodMonitors. Default false.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
}

// GrafanaSpec switches the Grafana dashboards on.
type GrafanaSpec struct {
	// enabled creates the dashboard ConfigMaps. Default false.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
}

// PrometheusRuleSpec switches the alerting rules on.
type PrometheusRuleSpec struct {
	// enabled creates the PrometheusRules. Default false.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// labels are added to the PrometheusRules, so that a Prometheus whose ruleSelector needs
	// them picks the rules up.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Labels map[string]string `json:"labels,omitempty"`
}

// OTELSpec sends OpenTelemetry traces to an OTLP collector.
type OTELSpec struct {
	// endpoint is the OTLP collector's URL, for example http://otel-collector.observability.svc:4317.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	Endpoint string `json:"endpoint,omitempty"`

	// insecure sends traces without TLS. Default false.
	// +optional
	Insecure bool `json:"insecure,omitempty"`

	// sampler is the OpenTelemetry sampler, for example parentbased_traceidratio. Unset, the SDK's
	// default.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Sampler string `json:"sampler,omitempty"`

	// samplerArg is the sampler's argument, for example 0.1 to sample one trace in ten.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SamplerArg string `json:"samplerArg,omitempty"`

	// redisTracing adds a span for every Redis/Valkey command. Default false.
	// +optional
	RedisTracing bool `json:"redisTracing,omitempty"`

	// postgresqlTracing adds a span for every PostgreSQL query. Default false.
	// +optional
	PostgresqlTracing bool `json:"postgresqlTracing,omitempty"`
}

// TLSSpec is HTTPS for the apiserver.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enabled) || !self.enabled || (has(self.secretName) && size(self.secretName) > 0) || has(self.certManager)",message="spec.tls.enabled needs a certificate: set spec.tls.secretName or spec.tls.certManager"
// +kubebuilder:validation:XValidation:rule="!(has(self.secretName) && size(self.secretName) > 0 && has(self.certManager))",message="spec.tls.secretName and spec.tls.certManager are mutually exclusive: keep one"
type TLSSpec struct {
	// enabled makes the apiserver serve HTTPS (Service port https) with the certificate of
	// secretName or certManager. Default false.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// secretName is an existing kubernetes.io/tls Secret in the object's namespace with the
	// apiserver's certificate and key. Mutually exclusive with certManager.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SecretName string `json:"secretName,omitempty"`

	// certManager has cert-manager issue the apiserver's certificate. Mutually exclusive with
	// secretName. Needs cert-manager.
	// +optional
	CertManager *CertManagerSpec `json:"certManager,omitempty"`
}

// CertManagerSpec is the cert-manager issuer of the apiserver's certificate.
//
// +kubebuilder:validation:XValidation:rule="!has(self.issuerName) || size(self.issuerName) > 0",fieldPath=".issuerName",reason="FieldValueRequired",message="spec.tls.certManager.issuerName must name a cert-manager Issuer or ClusterIssuer"
type CertManagerSpec struct {
	// issuerName is the cert-manager Issuer or ClusterIssuer that signs the certificate.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	IssuerName string `json:"issuerName"`

	// issuerKind is Issuer (in the object's namespace) or ClusterIssuer. Default ClusterIssuer.
	// +optional
	// +kubebuilder:validation:Enum=Issuer;ClusterIssuer
	// +kubebuilder:default=ClusterIssuer
	IssuerKind string `json:"issuerKind,omitempty"`

	// dnsNames are the certificate's DNS names. Nothing is derived: list every name clients use,
	// for example <service>.<namespace>.svc.
	// +optional
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:MaxItems=100
	DNSNames []string `json:"dnsNames,omitempty"`
}

// HTTPRouteSpec exposes the apiserver through a Gateway API HTTPRoute.
type HTTPRouteSpec struct {
	// enabled creates the HTTPRoute. Default false. Needs the Gateway API CRDs.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// annotations are added to the HTTPRoute.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	Annotations map[string]string `json:"annotations,omitempty"`

	// parentRefs are the Gateways the route attaches to. Unset, the route attaches to the
	// Gateway llm-d-inference-gateway in the object's namespace.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	ParentRefs []ParentReference `json:"parentRefs,omitempty"`
}

// ParentReference is a Gateway an HTTPRoute attaches to.
type ParentReference struct {
	// name of the Gateway.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// namespace of the Gateway. Unset, the object's namespace.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// sectionName is the Gateway listener to attach to. Unset, every listener that allows the
	// route.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	SectionName string `json:"sectionName,omitempty"`
}

// LLMBatchGatewayStatus is what the operator observed and did. Its upstream fields
// (observedGeneration, conditions, componentStatus) keep their meaning; generations is added.
type LLMBatchGatewayStatus struct {
	// observedGeneration is the metadata.generation the operator last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (every present component has a ready replica; the reason says why not),
	// APIServerAvailable, ProcessorAvailable, GCAvailable, AsyncProcessorAvailable (async mode
	// only), Progressing (a Deployment is rolling out) and Degraded (the operator could not apply
	// something).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// componentStatus is the replica count of each component's Deployment.
	// +optional
	ComponentStatus *ComponentStatus `json:"componentStatus,omitempty"`

	// generations holds the generation of each Deployment the operator last applied. A
	// Deployment whose generation differs was edited by someone else, and the operator applies
	// it again to revert the edit.
	// +optional
	// +listType=map
	// +listMapKey=group
	// +listMapKey=resource
	// +listMapKey=namespace
	// +listMapKey=name
	Generations []operatorv1.GenerationStatus `json:"generations,omitempty"`
}

// ComponentStatus is the replica count of each component.
type ComponentStatus struct {
	// apiServer is the apiserver Deployment's.
	// +optional
	APIServer *ComponentReplicaStatus `json:"apiServer,omitempty"`

	// processor is the processor Deployment's.
	// +optional
	Processor *ComponentReplicaStatus `json:"processor,omitempty"`

	// gc is the garbage collector Deployment's.
	// +optional
	GC *ComponentReplicaStatus `json:"gc,omitempty"`

	// asyncProcessor is the async-processor Deployment's (async mode only).
	// +optional
	AsyncProcessor *ComponentReplicaStatus `json:"asyncProcessor,omitempty"`
}

// ComponentReplicaStatus is a Deployment's replica count.
type ComponentReplicaStatus struct {
	// replicas is the Deployment's status.replicas: its pods that are not terminating.
	// +required
	Replicas int32 `json:"replicas"`

	// readyReplicas is the Deployment's status.readyReplicas: its pods that pass their readiness
	// probe.
	// +required
	ReadyReplicas int32 `json:"readyReplicas"`
}

// LLMBatchGatewayList is a list of LLMBatchGateway.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type LLMBatchGatewayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the LLMBatchGateways.
	Items []LLMBatchGateway `json:"items"`
}
