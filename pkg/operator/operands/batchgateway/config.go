package batchgateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"sigs.k8s.io/yaml"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
)

// The config files of the batch components, with upstream's keys and its chart's defaults.
// The operand reads them with yaml.v3 into its own structs, so key order does not matter; the
// values do: integers are written as integers (the chart writes large ones in scientific
// notation), durations and ports as strings.

// configFileKey is the ConfigMap key of each batch component's config file.
const configFileKey = "config.yaml"

// Defaults of the chart values the CR can change (the rest are written out in the builders).
const (
	defaultAPIServerPort          = 8000
	defaultObservabilityPort      = 8081
	defaultTenantHeaderKey        = "tenant"
	defaultTenantHeader           = "X-MaaS-Username"
	defaultPassThroughHeader      = "Authorization"
	defaultFSBasePath             = "/tmp/batch-gateway"
	defaultGCInterval             = "30m"
	defaultRequestTimeout         = "5m"
	defaultGatewayMaxRetries      = 3
	defaultGatewayInitialBackoff  = "1s"
	defaultGatewayMaxBackoff      = "60s"
	defaultFileRetryMaxRetries    = 3
	defaultFileRetryInitialBackof = "1s"
	defaultFileRetryMaxBackoff    = "10s"
	defaultAIMDBackoffFactor      = "0.5"
	tlsCertFile                   = "/etc/tls/tls.crt"
	tlsKeyFile                    = "/etc/tls/tls.key"
)

// dbClientConfig is db_client, shared by the three components.
type dbClientConfig struct {
	Type  string            `json:"type"`
	Redis redisClientConfig `json:"redis"`
}

// redisClientConfig holds go-redis settings; 0 and "0s" mean the library's defaults.
type redisClientConfig struct {
	DB              int    `json:"db"`
	EnableTLS       bool   `json:"enable_tls"`
	Insecure        bool   `json:"insecure"`
	Timeout         string `json:"timeout"`
	MaxRetries      int    `json:"max_retries"`
	MinRetryBackoff string `json:"min_retry_backoff"`
	MaxRetryBackoff string `json:"max_retry_backoff"`
	PoolTimeout     string `json:"pool_timeout"`
	ConnMaxIdleTime string `json:"conn_max_idle_time"`
	ConnMaxLifetime string `json:"conn_max_lifetime"`
}

// fileClientConfig is file_client, shared by the three components. Both the fs and the s3
// blocks are always written, as upstream does; type says which one is used.
type fileClientConfig struct {
	Type  string          `json:"type"`
	FS    fsClientConfig  `json:"fs"`
	S3    s3ClientConfig  `json:"s3"`
	Retry fileRetryConfig `json:"retry"`
}

type fsClientConfig struct {
	BasePath string `json:"base_path"`
}

type s3ClientConfig struct {
	Region           string `json:"region"`
	Bucket           string `json:"bucket"`
	Endpoint         string `json:"endpoint"`
	AccessKeyID      string `json:"access_key_id"`
	Prefix           string `json:"prefix"`
	UsePathStyle     bool   `json:"use_path_style"`
	AutoCreateBucket bool   `json:"auto_create_bucket"`
}

type fileRetryConfig struct {
	MaxRetries     int32  `json:"max_retries"`
	InitialBackoff string `json:"initial_backoff"`
	MaxBackoff     string `json:"max_backoff"`
}

// otelConfig switches tracing spans of the clients; the exporter is configured by env.
type otelConfig struct {
	RedisTracing      bool `json:"redis_tracing"`
	PostgresqlTracing bool `json:"postgresql_tracing"`
}

// apiServerConfig is the apiserver's config.yaml.
type apiServerConfig struct {
	Host                                string            `json:"host"`
	Port                                string            `json:"port"`
	ObservabilityPort                   string            `json:"observability_port"`
	InputHeaders                        map[string]string `json:"input_headers"`
	ReadHeaderTimeoutSeconds            int32             `json:"read_header_timeout_seconds"`
	ReadTimeoutSeconds                  int32             `json:"read_timeout_seconds"`
	WriteTimeoutSeconds                 int32             `json:"write_timeout_seconds"`
	IdleTimeoutSeconds                  int32             `json:"idle_timeout_seconds"`
	APIShutdownTimeoutSeconds           int32             `json:"api_shutdown_timeout_seconds"`
	ObservabilityShutdownTimeoutSeconds int32             `json:"observability_shutdown_timeout_seconds"`
	DBClient                            dbClientConfig    `json:"db_client"`
	FileClient                          fileClientConfig  `json:"file_client"`
	BatchAPI                            batchAPIConfig    `json:"batch_api"`
	FileAPI                             fileAPIConfig     `json:"file_api"`
	EnablePprof                         bool              `json:"enable_pprof"`
	OTEL                                otelConfig        `json:"otel"`
	SSLCertFile                         string            `json:"ssl_cert_file,omitempty"`
	SSLKeyFile                          string            `json:"ssl_key_file,omitempty"`
}

type batchAPIConfig struct {
	BatchEventTTLSeconds int64    `json:"batch_event_ttl_seconds"`
	PassThroughHeaders   []string `json:"pass_through_headers,omitempty"`
}

type fileAPIConfig struct {
	DefaultExpirationSeconds int64 `json:"default_expiration_seconds"`
	MaxSizeBytes             int64 `json:"max_size_bytes"`
	MaxLineCount             int64 `json:"max_line_count"`
}

// processorConfig is the processor's config.yaml.
type processorConfig struct {
	Addr                            string                   `json:"addr"`
	TaskWaitTime                    string                   `json:"task_wait_time"`
	PollInterval                    string                   `json:"poll_interval"`
	NumWorkers                      int32                    `json:"num_workers"`
	Concurrency                     concurrencyConfig        `json:"concurrency"`
	TerminateOnObservabilityFailure bool                     `json:"terminate_on_observability_failure"`
	ShutdownTimeout                 string                   `json:"shutdown_timeout"`
	HeartbeatInterval               string                   `json:"heartbeat_interval"`
	WorkDir                         string                   `json:"work_dir"`
	DBClient                        dbClientConfig           `json:"db_client"`
	DispatchMode                    string                   `json:"dispatch_mode,omitempty"`
	AsyncDispatch                   *asyncDispatchConfig     `json:"async_dispatch,omitempty"`
	GlobalInferenceGateway          *gatewayConfig           `json:"global_inference_gateway,omitempty"`
	ModelGateways                   map[string]gatewayConfig `json:"model_gateways,omitempty"`
	// SendFairnessHeader is written only when true, as upstream does; false is the
	// processor's default.
	SendFairnessHeader             bool             `json:"send_fairness_header,omitempty"`
	DefaultOutputExpirationSeconds int64            `json:"default_output_expiration_seconds"`
	ProgressTTLSeconds             int64            `json:"progress_ttl_seconds"`
	FileClient                     fileClientConfig `json:"file_client"`
	QueueTimeBucket                histogramBuckets `json:"queue_time_bucket"`
	ProcessTimeBucket              histogramBuckets `json:"process_time_bucket"`
	E2ELatencyBucket               histogramBuckets `json:"e2e_latency_bucket"`
	EnablePprof                    bool             `json:"enable_pprof"`
	OTEL                           otelConfig       `json:"otel"`
}

type concurrencyConfig struct {
	Global      int32      `json:"global"`
	PerEndpoint int32      `json:"per_endpoint"`
	Recovery    int32      `json:"recovery"`
	AIMD        aimdConfig `json:"aimd"`
}

type aimdConfig struct {
	Enabled bool  `json:"enabled"`
	Min     int32 `json:"min"`
	// BackoffFactor is written as a YAML number, as the chart does (the CR holds a string).
	BackoffFactor    json.Number `json:"backoff_factor"`
	AdditiveIncrease int32       `json:"additive_increase"`
}

type asyncDispatchConfig struct {
	ResultPollTimeout string `json:"result_poll_timeout"`
}

// gatewayConfig is one inference gateway of the processor (global_inference_gateway or a
// model_gateways entry). The HTTP fields are always written together, with defaults, because
// the processor rejects an entry that lacks one; tls_insecure_skip_verify is always false (the
// CRD forbids true).
type gatewayConfig struct {
	URL                   string `json:"url,omitempty"`
	InferenceObjective    string `json:"inference_objective,omitempty"`
	InferencePoolName     string `json:"inference_pool_name,omitempty"`
	RequestTimeout        string `json:"request_timeout,omitempty"`
	MaxRetries            *int32 `json:"max_retries,omitempty"`
	InitialBackoff        string `json:"initial_backoff,omitempty"`
	MaxBackoff            string `json:"max_backoff,omitempty"`
	TLSInsecureSkipVerify *bool  `json:"tls_insecure_skip_verify,omitempty"`
	TLSCACertFile         string `json:"tls_ca_cert_file,omitempty"`
	TLSClientCertFile     string `json:"tls_client_cert_file,omitempty"`
	TLSClientKeyFile      string `json:"tls_client_key_file,omitempty"`
}

// histogramBuckets are exponential Prometheus buckets: count buckets from start, each factor
// times the last.
type histogramBuckets struct {
	Start  float64 `json:"start"`
	Factor float64 `json:"factor"`
	Count  int     `json:"count"`
}

// gcConfig is the garbage collector's config.yaml.
type gcConfig struct {
	DryRun      bool             `json:"dry_run"`
	Collector   collectorConfig  `json:"collector"`
	MetricsAddr string           `json:"metrics_addr"`
	DBClient    dbClientConfig   `json:"db_client"`
	FileClient  fileClientConfig `json:"file_client"`
	Reconciler  reconcilerConfig `json:"reconciler"`
}

type collectorConfig struct {
	Interval       string `json:"interval"`
	MaxConcurrency int32  `json:"max_concurrency"`
}

// reconcilerConfig is the garbage collector's orphaned-batch reconciler
// (spec.gc.config.reconciler). The interval is written even when the reconciler is off, as
// upstream's chart does.
type reconcilerConfig struct {
	Enabled  bool   `json:"enabled"`
	Interval string `json:"interval"`
}

// marshalConfig writes a config file.
func marshalConfig(config interface{}) (string, error) {
	data, err := yaml.Marshal(config)
	if err != nil {
		return "", fmt.Errorf("encode %T: %w", config, err)
	}
	return string(data), nil
}

// --- shared blocks ---

// sharedConfig holds the blocks the three components' config files share.
type sharedConfig struct {
	DBClient   dbClientConfig
	FileClient fileClientConfig
	OTEL       otelConfig
}

// sharedConfigFor builds the shared blocks once for the three config files.
func sharedConfigFor(spec *batchv1alpha1.LLMBatchGatewaySpec) (sharedConfig, error) {
	fc, err := fileClientFor(spec.FileStorage)
	return sharedConfig{DBClient: dbClientFor(spec), FileClient: fc, OTEL: otelFor(spec)}, err
}

// dbClientFor is db_client: the metadata database type and the Redis client's TLS settings.
func dbClientFor(spec *batchv1alpha1.LLMBatchGatewaySpec) dbClientConfig {
	db := dbClientConfig{
		Type: spec.DBBackend,
		Redis: redisClientConfig{
			Timeout:         "0s",
			MinRetryBackoff: "0s",
			MaxRetryBackoff: "0s",
			PoolTimeout:     "0s",
			ConnMaxIdleTime: "0s",
			ConnMaxLifetime: "0s",
		},
	}
	if db.Type == "" {
		db.Type = batchv1alpha1.DBBackendPostgreSQL
	}
	if spec.Redis != nil {
		db.Redis.EnableTLS = spec.Redis.EnableTLS
		db.Redis.Insecure = spec.Redis.Insecure
	}
	return db
}

// fileClientFor is file_client. The CRD requires exactly one of s3 and fs; without it the
// operand cannot run, so it is an error here rather than a config the operand rejects.
func fileClientFor(storage *batchv1alpha1.FileStorageSpec) (fileClientConfig, error) {
	fc := fileClientConfig{
		FS: fsClientConfig{BasePath: defaultFSBasePath},
		S3: s3ClientConfig{AutoCreateBucket: true},
		Retry: fileRetryConfig{
			MaxRetries:     defaultFileRetryMaxRetries,
			InitialBackoff: defaultFileRetryInitialBackof,
			MaxBackoff:     defaultFileRetryMaxBackoff,
		},
	}
	switch {
	case storage == nil || (storage.S3 == nil) == (storage.FS == nil):
		return fc, fmt.Errorf("spec.fileStorage: exactly one of s3 and fs must be set")
	case storage.S3 != nil:
		fc.Type = "s3"
		s3 := storage.S3
		fc.S3 = s3ClientConfig{
			Region:           s3.Region,
			Bucket:           s3.Bucket,
			Endpoint:         s3.Endpoint,
			AccessKeyID:      s3.AccessKeyID,
			Prefix:           s3.Prefix,
			UsePathStyle:     s3.UsePathStyle,
			AutoCreateBucket: s3.AutoCreateBucket == nil || *s3.AutoCreateBucket,
		}
	default:
		if storage.FS.ClaimName == "" {
			return fc, fmt.Errorf("spec.fileStorage.fs.claimName must be set")
		}
		fc.Type = "fs"
		fc.FS.BasePath = fsBasePath(storage.FS)
	}
	if retry := storage.Retry; retry != nil {
		if retry.MaxRetries != nil {
			fc.Retry.MaxRetries = *retry.MaxRetries
		}
		fc.Retry.InitialBackoff = cmp.Or(retry.InitialBackoff, fc.Retry.InitialBackoff)
		fc.Retry.MaxBackoff = cmp.Or(retry.MaxBackoff, fc.Retry.MaxBackoff)
	}
	return fc, nil
}

// fsBasePath is where the fs storage PVC is mounted and where the components keep files.
func fsBasePath(fs *batchv1alpha1.FSStorageSpec) string {
	return cmp.Or(fs.BasePath, defaultFSBasePath)
}

func otelFor(spec *batchv1alpha1.LLMBatchGatewaySpec) otelConfig {
	if spec.OTEL == nil {
		return otelConfig{}
	}
	return otelConfig{RedisTracing: spec.OTEL.RedisTracing, PostgresqlTracing: spec.OTEL.PostgresqlTracing}
}

// --- apiserver ---

// apiServerConfigFor builds the apiserver's config.yaml from the CR.
func apiServerConfigFor(spec *batchv1alpha1.LLMBatchGatewaySpec, shared sharedConfig) *apiServerConfig {
	c := &apiServerConfig{
		Port:                                strconv.Itoa(defaultAPIServerPort),
		ObservabilityPort:                   strconv.Itoa(defaultObservabilityPort),
		InputHeaders:                        map[string]string{defaultTenantHeaderKey: defaultTenantHeader},
		ReadHeaderTimeoutSeconds:            10,
		ReadTimeoutSeconds:                  900,
		WriteTimeoutSeconds:                 120,
		IdleTimeoutSeconds:                  90,
		APIShutdownTimeoutSeconds:           60,
		ObservabilityShutdownTimeoutSeconds: 60,
		DBClient:                            shared.DBClient,
		FileClient:                          shared.FileClient,
		BatchAPI: batchAPIConfig{
			BatchEventTTLSeconds: 30 * 24 * 60 * 60,
			PassThroughHeaders:   []string{defaultPassThroughHeader},
		},
		FileAPI: fileAPIConfig{
			DefaultExpirationSeconds: 90 * 24 * 60 * 60,
			MaxSizeBytes:             200 << 20,
			MaxLineCount:             50000,
		},
		OTEL: shared.OTEL,
	}
	if spec.TLS != nil && spec.TLS.Enabled {
		c.SSLCertFile, c.SSLKeyFile = tlsCertFile, tlsKeyFile
	}
	if cfg := spec.APIServer.Config; cfg != nil {
		applyAPIServerConfigSpec(c, cfg)
	}
	return c
}

// applyAPIServerConfigSpec applies spec.apiServer.config: zero values keep the defaults,
// inputHeaders merge with the default tenant header, passThroughHeaders replace the default
// list.
func applyAPIServerConfigSpec(c *apiServerConfig, cfg *batchv1alpha1.APIServerConfigSpec) {
	c.Port = strconv.Itoa(int(apiServerPort(cfg)))
	c.ObservabilityPort = strconv.Itoa(int(observabilityPort(cfg)))
	setIfNonZero(&c.ReadTimeoutSeconds, cfg.ReadTimeoutSeconds)
	setIfNonZero(&c.WriteTimeoutSeconds, cfg.WriteTimeoutSeconds)
	setIfNonZero(&c.IdleTimeoutSeconds, cfg.IdleTimeoutSeconds)
	for k, v := range cfg.InputHeaders {
		c.InputHeaders[k] = v
	}
	if b := cfg.BatchAPI; b != nil {
		setIfNonZero(&c.BatchAPI.BatchEventTTLSeconds, int64(b.EventTTLSeconds))
		if len(b.PassThroughHeaders) > 0 {
			c.BatchAPI.PassThroughHeaders = append([]string(nil), b.PassThroughHeaders...)
		}
	}
	if f := cfg.FileAPI; f != nil {
		setIfNonZero(&c.FileAPI.DefaultExpirationSeconds, f.DefaultExpirationSeconds)
		setIfNonZero(&c.FileAPI.MaxSizeBytes, f.MaxSizeBytes)
		setIfNonZero(&c.FileAPI.MaxLineCount, f.MaxLineCount)
	}
	c.EnablePprof = cfg.EnablePprof
}

// apiServerPort is the port the API listens on (the container port named http).
func apiServerPort(cfg *batchv1alpha1.APIServerConfigSpec) int32 {
	if cfg != nil && cfg.Port != 0 {
		return cfg.Port
	}
	return defaultAPIServerPort
}

// observabilityPort serves health, readiness and metrics.
func observabilityPort(cfg *batchv1alpha1.APIServerConfigSpec) int32 {
	if cfg != nil && cfg.ObservabilityPort != 0 {
		return cfg.ObservabilityPort
	}
	return defaultObservabilityPort
}

// --- processor ---

// processorConfigFor builds the processor's config.yaml from the CR.
func processorConfigFor(spec *batchv1alpha1.LLMBatchGatewaySpec, shared sharedConfig) (*processorConfig, error) {
	c := &processorConfig{
		Addr:         ":9090",
		TaskWaitTime: "1s",
		PollInterval: "5s",
		NumWorkers:   20,
		Concurrency: concurrencyConfig{
			Global:      batchv1alpha1.DefaultGlobalConcurrency,
			PerEndpoint: batchv1alpha1.DefaultPerEndpointConcurrency,
			Recovery:    5,
			AIMD: aimdConfig{
				Enabled:          true,
				Min:              batchv1alpha1.DefaultAIMDMin,
				BackoffFactor:    json.Number(defaultAIMDBackoffFactor),
				AdditiveIncrease: 1,
			},
		},
		ShutdownTimeout:                "30s",
		HeartbeatInterval:              batchv1alpha1.DefaultHeartbeatInterval,
		WorkDir:                        processorWorkDir,
		DBClient:                       shared.DBClient,
		DispatchMode:                   cmp.Or(spec.Processor.DispatchMode, batchv1alpha1.DispatchModeSync),
		DefaultOutputExpirationSeconds: 90 * 24 * 60 * 60,
		ProgressTTLSeconds:             24 * 60 * 60,
		FileClient:                     shared.FileClient,
		QueueTimeBucket:                histogramBuckets{Start: 0.1, Factor: 2, Count: 10},
		ProcessTimeBucket:              histogramBuckets{Start: 0.1, Factor: 2, Count: 15},
		E2ELatencyBucket:               histogramBuckets{Start: 1, Factor: 3, Count: 12},
		OTEL:                           shared.OTEL,
	}
	// resultPollTimeout goes to the processor (not the async-processor), in either mode.
	if async := spec.Processor.AsyncConfig; async != nil && async.ResultPollTimeout != "" {
		c.AsyncDispatch = &asyncDispatchConfig{ResultPollTimeout: async.ResultPollTimeout}
	}
	if g := spec.Processor.GlobalInferenceGateway; g != nil {
		global := gatewayConfigFor(g, true)
		c.GlobalInferenceGateway = &global
	}
	if len(spec.Processor.ModelGateways) > 0 {
		c.ModelGateways = map[string]gatewayConfig{}
		for model, g := range spec.Processor.ModelGateways {
			c.ModelGateways[model] = gatewayConfigFor(&g, g.URL != "")
		}
	}
	if cfg := spec.Processor.Config; cfg != nil {
		if err := applyProcessorConfigSpec(c, cfg); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// processorWorkDir is config.yaml's work_dir, where the workdir emptyDir is mounted.
const processorWorkDir = "/var/lib/batch-gateway/processor"

// gatewayConfigFor maps an InferenceGatewaySpec. withHTTP writes the HTTP fields with their
// defaults: always for the global gateway, for a model gateway only when it has a URL (an
// async model gateway names only its inference pool). tlsInsecureSkipVerify is never taken
// from the CR.
func gatewayConfigFor(g *batchv1alpha1.InferenceGatewaySpec, withHTTP bool) gatewayConfig {
	c := gatewayConfig{
		InferenceObjective: g.InferenceObjective,
		InferencePoolName:  g.InferencePoolName,
		TLSCACertFile:      g.TLSCACertFile,
		TLSClientCertFile:  g.TLSClientCertFile,
		TLSClientKeyFile:   g.TLSClientKeyFile,
	}
	if !withHTTP {
		return c
	}
	maxRetries := int32(defaultGatewayMaxRetries)
	if g.MaxRetries != nil {
		maxRetries = *g.MaxRetries
	}
	insecure := false
	c.URL = g.URL
	c.RequestTimeout = cmp.Or(g.RequestTimeout, defaultRequestTimeout)
	c.MaxRetries = &maxRetries
	c.InitialBackoff = cmp.Or(g.InitialBackoff, defaultGatewayInitialBackoff)
	c.MaxBackoff = cmp.Or(g.MaxBackoff, defaultGatewayMaxBackoff)
	c.TLSInsecureSkipVerify = &insecure
	return c
}

// applyProcessorConfigSpec applies spec.processor.config; zero values keep the defaults.
func applyProcessorConfigSpec(c *processorConfig, cfg *batchv1alpha1.ProcessorConfigSpec) error {
	setIfNonZero(&c.NumWorkers, cfg.NumWorkers)
	if cc := cfg.Concurrency; cc != nil {
		setIfNonZero(&c.Concurrency.Global, cc.Global)
		setIfNonZero(&c.Concurrency.PerEndpoint, cc.PerEndpoint)
		setIfNonZero(&c.Concurrency.Recovery, cc.Recovery)
		if aimd := cc.AIMD; aimd != nil {
			if aimd.Enabled != nil {
				c.Concurrency.AIMD.Enabled = *aimd.Enabled
			}
			setIfNonZero(&c.Concurrency.AIMD.Min, aimd.Min)
			setIfNonZero(&c.Concurrency.AIMD.AdditiveIncrease, aimd.AdditiveIncrease)
			if aimd.BackoffFactor != "" {
				if _, err := strconv.ParseFloat(aimd.BackoffFactor, 64); err != nil {
					return fmt.Errorf("spec.processor.config.concurrency.aimd.backoffFactor %q is not a number", aimd.BackoffFactor)
				}
				c.Concurrency.AIMD.BackoffFactor = json.Number(aimd.BackoffFactor)
			}
		}
	}
	setIfNonZero(&c.DefaultOutputExpirationSeconds, cfg.DefaultOutputExpirationSeconds)
	setIfNonZero(&c.ProgressTTLSeconds, cfg.ProgressTTLSeconds)
	if cfg.SendFairnessHeader != nil {
		c.SendFairnessHeader = *cfg.SendFairnessHeader
	}
	c.EnablePprof = cfg.EnablePprof
	c.HeartbeatInterval = cmp.Or(cfg.HeartbeatInterval, c.HeartbeatInterval)
	return nil
}

// --- gc ---

// gcConfigFor builds the garbage collector's config.yaml from the CR. It has no otel block.
func gcConfigFor(spec *batchv1alpha1.LLMBatchGatewaySpec, shared sharedConfig) *gcConfig {
	c := &gcConfig{
		Collector:   collectorConfig{Interval: cmp.Or(spec.GC.Interval, defaultGCInterval), MaxConcurrency: 10},
		MetricsAddr: ":9091",
		DBClient:    shared.DBClient,
		FileClient:  shared.FileClient,
		Reconciler:  reconcilerConfig{Enabled: true, Interval: batchv1alpha1.DefaultReconcilerInterval},
	}
	if cfg := spec.GC.Config; cfg != nil {
		c.DryRun = cfg.DryRun
		setIfNonZero(&c.Collector.MaxConcurrency, cfg.MaxConcurrency)
		if reconciler := cfg.Reconciler; reconciler != nil {
			if reconciler.Enabled != nil {
				c.Reconciler.Enabled = *reconciler.Enabled
			}
			c.Reconciler.Interval = cmp.Or(reconciler.Interval, c.Reconciler.Interval)
		}
	}
	return c
}

// --- async-processor ---

// Keys of the async-processor's ConfigMap, mounted at asyncConfigDir.
const (
	workerPoolsKey     = "worker-pools.json"
	transformConfigKey = "transform-config.json"
	asyncConfigDir     = "/etc/async-processor/config"
)

// workerPoolConfig is one entry of worker-pools.json. Fields are in alphabetical order so the
// JSON reads as upstream's (Helm's toJson sorts keys).
type workerPoolConfig struct {
	GateParams map[string]string `json:"gate_params,omitempty"`
	GateType   string            `json:"gate_type,omitempty"`
	ID         string            `json:"id"`
	Workers    int32             `json:"workers"`
}

// transformConfig is transform-config.json.
type transformConfig struct {
	RequestTransforms []requestTransformConfig `json:"requestTransforms"`
}

type requestTransformConfig struct {
	Name       string                     `json:"name"`
	Parameters map[string]json.RawMessage `json:"parameters,omitempty"`
	Type       string                     `json:"type"`
}

// asyncConfigFiles is the data of the async-processor's ConfigMap: worker-pools.json when
// worker pools are configured, transform-config.json when request transforms are. Empty means
// the ConfigMap is not wanted.
func asyncConfigFiles(async *batchv1alpha1.AsyncProcessorSpec) (map[string]string, error) {
	files := map[string]string{}
	if len(async.WorkerPools) > 0 {
		pools := make([]workerPoolConfig, 0, len(async.WorkerPools))
		for _, p := range async.WorkerPools {
			pools = append(pools, workerPoolConfig{ID: p.Name, Workers: p.Workers, GateType: p.GateType, GateParams: p.GateParams})
		}
		data, err := json.Marshal(pools)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", workerPoolsKey, err)
		}
		files[workerPoolsKey] = string(data)
	}
	if async.TransformConfig != nil && len(async.TransformConfig.RequestTransforms) > 0 {
		tc := transformConfig{}
		for _, t := range async.TransformConfig.RequestTransforms {
			tc.RequestTransforms = append(tc.RequestTransforms, requestTransformConfig{
				Name: t.Name, Type: t.Type, Parameters: transformParameters(t.Parameters),
			})
		}
		data, err := json.Marshal(tc)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", transformConfigKey, err)
		}
		files[transformConfigKey] = string(data)
	}
	return files, nil
}

// transformParameters passes a parameter that parses as a JSON number, boolean, array or
// object on as that JSON value (the CR can only hold strings); anything else stays a string.
func transformParameters(params map[string]string) map[string]json.RawMessage {
	if len(params) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(params))
	for k, v := range params {
		var value interface{}
		if err := json.Unmarshal([]byte(v), &value); err == nil && value != nil {
			if _, isString := value.(string); !isString {
				out[k] = json.RawMessage(v)
				continue
			}
		}
		quoted, _ := json.Marshal(v) // a string always encodes
		out[k] = quoted
	}
	return out
}

// asyncQueueConfig is one entry of the async-processor's --redis.ss.queues-config, fields in
// alphabetical order as upstream's JSON has them.
type asyncQueueConfig struct {
	GateParams     map[string]string `json:"gate_params,omitempty"`
	GateType       string            `json:"gate_type,omitempty"`
	IGWBaseURL     string            `json:"igw_base_url,omitempty"`
	QueueName      string            `json:"queue_name"`
	RequestPathURL string            `json:"request_path_url,omitempty"`
	WorkerPoolID   string            `json:"worker_pool_id,omitempty"`
}

// asyncRequestQueuePrefix prefixes the Redis sorted set the processor writes a pool's requests
// to (pkg/clients/inference in batch-gateway): "llm-d-async:requests:<inference pool>".
const asyncRequestQueuePrefix = "llm-d-async:requests:"

const defaultAsyncRequestPath = "/v1/completions"

// asyncQueues is the async-processor's queue list. redis.queuesConfig is used as given. When it
// is empty (upstream's single-queue mode) the async-processor would consume a queue nobody
// writes to (upstream bug, reference §7.1): instead, one queue per distinct inference pool of
// spec.processor.modelGateways, named as the processor names it, sent to
// asyncConfig.inferenceGateway.url with redis's request path and gate.
func asyncQueues(processor *batchv1alpha1.ProcessorSpec) []asyncQueueConfig {
	redis := processor.AsyncConfig.Redis
	var queues []asyncQueueConfig
	for _, q := range redis.QueuesConfig {
		queues = append(queues, asyncQueueConfig{
			QueueName:      q.Name,
			WorkerPoolID:   q.WorkerPoolID,
			IGWBaseURL:     q.IGWBaseURL,
			RequestPathURL: q.RequestPathURL,
			GateType:       q.GateType,
			GateParams:     q.GateParams,
		})
	}
	if len(queues) > 0 {
		return queues
	}
	igw := ""
	if g := processor.AsyncConfig.InferenceGateway; g != nil {
		igw = g.URL
	}
	for _, pool := range inferencePools(processor.ModelGateways) {
		queues = append(queues, asyncQueueConfig{
			QueueName:      asyncRequestQueuePrefix + pool,
			IGWBaseURL:     igw,
			RequestPathURL: cmp.Or(redis.RequestPathURL, defaultAsyncRequestPath),
			GateType:       redis.GateType,
			GateParams:     redis.GateParams,
		})
	}
	return queues
}

// inferencePools is the sorted set of inference pool names of the model gateways.
func inferencePools(gateways map[string]batchv1alpha1.InferenceGatewaySpec) []string {
	seen := map[string]bool{}
	var pools []string
	for _, g := range gateways {
		if g.InferencePoolName != "" && !seen[g.InferencePoolName] {
			seen[g.InferencePoolName] = true
			pools = append(pools, g.InferencePoolName)
		}
	}
	sort.Strings(pools)
	return pools
}

// --- helpers ---

// setIfNonZero overwrites a default with a CR value the CR has set (zero means unset).
func setIfNonZero[T int32 | int64](dst *T, value T) {
	if value != 0 {
		*dst = value
	}
}
