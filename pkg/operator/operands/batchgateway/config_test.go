package batchgateway

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
)

// minimalSpec is the smallest spec the CRD accepts, CRD defaults applied.
func minimalSpec() batchv1alpha1.LLMBatchGatewaySpec {
	return batchv1alpha1.LLMBatchGatewaySpec{
		SecretRef:   corev1.SecretReference{Name: "creds"},
		DBBackend:   batchv1alpha1.DBBackendPostgreSQL,
		FileStorage: &batchv1alpha1.FileStorageSpec{S3: &batchv1alpha1.S3StorageSpec{Bucket: "files"}},
		APIServer:   batchv1alpha1.APIServerSpec{Replicas: ptr.To[int32](1)},
		Processor: batchv1alpha1.ProcessorSpec{
			Replicas:               ptr.To[int32](1),
			DispatchMode:           batchv1alpha1.DispatchModeSync,
			GlobalInferenceGateway: &batchv1alpha1.InferenceGatewaySpec{URL: "http://igw:8000"},
		},
		GC: batchv1alpha1.GCSpec{Replicas: ptr.To[int32](1), Interval: "30m"},
	}
}

// defaultFileClient is file_client for minimalSpec.
func defaultFileClient() fileClientConfig {
	return fileClientConfig{
		Type:  "s3",
		FS:    fsClientConfig{BasePath: "/tmp/batch-gateway"},
		S3:    s3ClientConfig{Bucket: "files", AutoCreateBucket: true},
		Retry: fileRetryConfig{MaxRetries: 3, InitialBackoff: "1s", MaxBackoff: "10s"},
	}
}

func defaultDBClient() dbClientConfig {
	return dbClientConfig{Type: "postgresql", Redis: redisClientConfig{
		Timeout: "0s", MinRetryBackoff: "0s", MaxRetryBackoff: "0s", PoolTimeout: "0s", ConnMaxIdleTime: "0s", ConnMaxLifetime: "0s",
	}}
}

// configCase is one row of a config builder's table: a change to minimalSpec, and the change
// it must make to the builder's output for minimalSpec (and nothing else).
type configCase[C any] struct {
	name string
	spec func(*batchv1alpha1.LLMBatchGatewaySpec)
	want func(*C)
}

func runConfigCases[C any](t *testing.T, defaults func() C, build func(*batchv1alpha1.LLMBatchGatewaySpec, sharedConfig) (*C, error), cases []configCase[C]) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := minimalSpec()
			tc.spec(&spec)
			want := defaults()
			tc.want(&want)
			shared, err := sharedConfigFor(&spec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := build(&spec, shared)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("got\n%+v\nwant\n%+v", *got, want)
			}
		})
	}
}

// noError adapts a builder that cannot fail to runConfigCases.
func noError[C any](build func(*batchv1alpha1.LLMBatchGatewaySpec, sharedConfig) *C) func(*batchv1alpha1.LLMBatchGatewaySpec, sharedConfig) (*C, error) {
	return func(spec *batchv1alpha1.LLMBatchGatewaySpec, shared sharedConfig) (*C, error) {
		return build(spec, shared), nil
	}
}

func TestAPIServerConfigFor(t *testing.T) {
	defaults := apiServerConfig{
		Port: "8000", ObservabilityPort: "8081",
		InputHeaders:             map[string]string{"tenant": "X-MaaS-Username"},
		ReadHeaderTimeoutSeconds: 10, ReadTimeoutSeconds: 900, WriteTimeoutSeconds: 120, IdleTimeoutSeconds: 90,
		APIShutdownTimeoutSeconds: 60, ObservabilityShutdownTimeoutSeconds: 60,
		DBClient:   defaultDBClient(),
		FileClient: defaultFileClient(),
		BatchAPI:   batchAPIConfig{BatchEventTTLSeconds: 2592000, PassThroughHeaders: []string{"Authorization"}},
		FileAPI:    fileAPIConfig{DefaultExpirationSeconds: 7776000, MaxSizeBytes: 209715200, MaxLineCount: 50000},
	}
	runConfigCases(t, func() apiServerConfig {
		c := defaults
		c.InputHeaders = copyMap(defaults.InputHeaders)
		return c
	}, noError(apiServerConfigFor), []configCase[apiServerConfig]{
		{"defaults", func(*batchv1alpha1.LLMBatchGatewaySpec) {}, func(*apiServerConfig) {}},
		{"empty config keeps the defaults", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{}
		}, func(*apiServerConfig) {}},
		{"ports are strings", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{Port: 9000, ObservabilityPort: 9001}
		}, func(c *apiServerConfig) { c.Port, c.ObservabilityPort = "9000", "9001" }},
		{"timeouts, zero keeps the default", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{ReadTimeoutSeconds: 999, IdleTimeoutSeconds: 5}
		}, func(c *apiServerConfig) { c.ReadTimeoutSeconds, c.IdleTimeoutSeconds = 999, 5 }},
		{"inputHeaders merge with the tenant header", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{InputHeaders: map[string]string{"user": "X-User"}}
		}, func(c *apiServerConfig) { c.InputHeaders["user"] = "X-User" }},
		{"inputHeaders can override the tenant header", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{InputHeaders: map[string]string{"tenant": "X-Tenant"}}
		}, func(c *apiServerConfig) { c.InputHeaders["tenant"] = "X-Tenant" }},
		{"passThroughHeaders replace the default", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{BatchAPI: &batchv1alpha1.BatchAPIConfig{
				EventTTLSeconds: 3600, PassThroughHeaders: []string{"X-A", "X-B"},
			}}
		}, func(c *apiServerConfig) {
			c.BatchAPI = batchAPIConfig{BatchEventTTLSeconds: 3600, PassThroughHeaders: []string{"X-A", "X-B"}}
		}},
		{"fileAPI", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{FileAPI: &batchv1alpha1.FileAPIConfig{MaxSizeBytes: 1 << 30, MaxLineCount: 10}}
		}, func(c *apiServerConfig) { c.FileAPI.MaxSizeBytes, c.FileAPI.MaxLineCount = 1<<30, 10 }},
		{"pprof", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.APIServer.Config = &batchv1alpha1.APIServerConfigSpec{EnablePprof: true}
		}, func(c *apiServerConfig) { c.EnablePprof = true }},
		{"TLS points at the mounted certificate", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.TLS = &batchv1alpha1.TLSSpec{Enabled: true, SecretName: "cert"}
		}, func(c *apiServerConfig) { c.SSLCertFile, c.SSLKeyFile = "/etc/tls/tls.crt", "/etc/tls/tls.key" }},
		{"TLS off", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.TLS = &batchv1alpha1.TLSSpec{SecretName: "cert"}
		}, func(*apiServerConfig) {}},
		{"otel tracing flags", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.OTEL = &batchv1alpha1.OTELSpec{Endpoint: "http://otel:4317", PostgresqlTracing: true}
		}, func(c *apiServerConfig) { c.OTEL.PostgresqlTracing = true }},
		{"database and redis TLS", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.DBBackend = "valkey"
			s.Redis = &batchv1alpha1.RedisClientSpec{EnableTLS: true, Insecure: true}
		}, func(c *apiServerConfig) {
			c.DBClient.Type = "valkey"
			c.DBClient.Redis.EnableTLS, c.DBClient.Redis.Insecure = true, true
		}},
		{"no dbBackend is the CRD's default", func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.DBBackend = "" }, func(*apiServerConfig) {}},
	})
}

func TestProcessorConfigFor(t *testing.T) {
	defaultGateway := gatewayConfig{
		URL: "http://igw:8000", RequestTimeout: "5m", MaxRetries: ptr.To[int32](3), InitialBackoff: "1s", MaxBackoff: "60s",
		TLSInsecureSkipVerify: ptr.To(false),
	}
	defaults := func() processorConfig {
		global := defaultGateway
		return processorConfig{
			Addr: ":9090", TaskWaitTime: "1s", PollInterval: "5s", NumWorkers: 20,
			Concurrency: concurrencyConfig{Global: 100, PerEndpoint: 10, Recovery: 5, AIMD: aimdConfig{
				Enabled: true, Min: 5, BackoffFactor: "0.5", AdditiveIncrease: 1,
			}},
			ShutdownTimeout: "30s", HeartbeatInterval: "5m", WorkDir: "/var/lib/batch-gateway/processor",
			DBClient: defaultDBClient(), DispatchMode: "sync", GlobalInferenceGateway: &global,
			DefaultOutputExpirationSeconds: 7776000, ProgressTTLSeconds: 86400,
			FileClient:        defaultFileClient(),
			QueueTimeBucket:   histogramBuckets{Start: 0.1, Factor: 2, Count: 10},
			ProcessTimeBucket: histogramBuckets{Start: 0.1, Factor: 2, Count: 15},
			E2ELatencyBucket:  histogramBuckets{Start: 1, Factor: 3, Count: 12},
		}
	}
	runConfigCases(t, defaults, processorConfigFor, []configCase[processorConfig]{
		{"defaults", func(*batchv1alpha1.LLMBatchGatewaySpec) {}, func(*processorConfig) {}},
		{"global gateway fields, tlsInsecureSkipVerify never taken", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.GlobalInferenceGateway = &batchv1alpha1.InferenceGatewaySpec{
				URL: "https://igw", RequestTimeout: "1m", MaxRetries: ptr.To[int32](0), InitialBackoff: "2s", MaxBackoff: "3s",
				InferenceObjective: "batch", TLSInsecureSkipVerify: true, TLSCACertFile: "/etc/.secrets/ca",
				TLSClientCertFile: "/etc/.secrets/crt", TLSClientKeyFile: "/etc/.secrets/key",
			}
		}, func(c *processorConfig) {
			c.GlobalInferenceGateway = &gatewayConfig{
				URL: "https://igw", InferenceObjective: "batch", RequestTimeout: "1m", MaxRetries: ptr.To[int32](0),
				InitialBackoff: "2s", MaxBackoff: "3s", TLSInsecureSkipVerify: ptr.To(false), TLSCACertFile: "/etc/.secrets/ca",
				TLSClientCertFile: "/etc/.secrets/crt", TLSClientKeyFile: "/etc/.secrets/key",
			}
		}},
		{"model gateways: with a URL the HTTP fields and defaults, with only a pool just the pool", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.GlobalInferenceGateway = nil
			s.Processor.ModelGateways = map[string]batchv1alpha1.InferenceGatewaySpec{
				"llama": {URL: "http://igw:8000"},
				"sim":   {InferencePoolName: "sim-pool", InferenceObjective: "low"},
			}
		}, func(c *processorConfig) {
			c.GlobalInferenceGateway = nil
			c.ModelGateways = map[string]gatewayConfig{
				"llama": defaultGateway,
				"sim":   {InferencePoolName: "sim-pool", InferenceObjective: "low"},
			}
		}},
		{"async dispatch and result poll timeout", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.DispatchMode = "async"
			s.Processor.AsyncConfig = &batchv1alpha1.AsyncProcessorSpec{ResultPollTimeout: "30s"}
		}, func(c *processorConfig) {
			c.DispatchMode = "async"
			c.AsyncDispatch = &asyncDispatchConfig{ResultPollTimeout: "30s"}
		}},
		{"result poll timeout is written in sync mode too", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.AsyncConfig = &batchv1alpha1.AsyncProcessorSpec{ResultPollTimeout: "1m"}
		}, func(c *processorConfig) { c.AsyncDispatch = &asyncDispatchConfig{ResultPollTimeout: "1m"} }},
		{"no dispatchMode is the CRD's default", func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.Processor.DispatchMode = "" }, func(*processorConfig) {}},
		{"concurrency and AIMD", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{NumWorkers: 99, Concurrency: &batchv1alpha1.ConcurrencyConfig{
				Global: 42, PerEndpoint: 7, Recovery: 3,
				AIMD: &batchv1alpha1.AIMDConfig{Enabled: ptr.To(false), Min: 2, BackoffFactor: "0.3", AdditiveIncrease: 3},
			}}
		}, func(c *processorConfig) {
			c.NumWorkers = 99
			c.Concurrency = concurrencyConfig{Global: 42, PerEndpoint: 7, Recovery: 3, AIMD: aimdConfig{Min: 2, BackoffFactor: "0.3", AdditiveIncrease: 3}}
		}},
		{"expirations, fairness header, pprof", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{
				DefaultOutputExpirationSeconds: 60, ProgressTTLSeconds: 120, SendFairnessHeader: ptr.To(true), EnablePprof: true,
			}
		}, func(c *processorConfig) {
			c.DefaultOutputExpirationSeconds, c.ProgressTTLSeconds, c.SendFairnessHeader, c.EnablePprof = 60, 120, true, true
		}},
		{"heartbeat interval", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{HeartbeatInterval: "10s"}
		}, func(c *processorConfig) { c.HeartbeatInterval = "10s" }},
		{"a config without heartbeat interval keeps 5m", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{NumWorkers: 20}
		}, func(*processorConfig) {}},
	})
}

func TestProcessorConfigForRejectsABackoffFactorThatIsNoNumber(t *testing.T) {
	spec := minimalSpec()
	spec.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{Concurrency: &batchv1alpha1.ConcurrencyConfig{
		AIMD: &batchv1alpha1.AIMDConfig{BackoffFactor: "half"},
	}}
	if _, err := processorConfigFor(&spec, sharedConfig{}); err == nil || !strings.Contains(err.Error(), "backoffFactor") {
		t.Errorf("err = %v", err)
	}
}

func TestGCConfigFor(t *testing.T) {
	defaults := gcConfig{
		Collector:   collectorConfig{Interval: "30m", MaxConcurrency: 10},
		MetricsAddr: ":9091",
		DBClient:    defaultDBClient(),
		FileClient:  defaultFileClient(),
		Reconciler:  reconcilerConfig{Enabled: true, Interval: "60m"},
	}
	runConfigCases(t, func() gcConfig { return defaults }, noError(gcConfigFor), []configCase[gcConfig]{
		{"defaults", func(*batchv1alpha1.LLMBatchGatewaySpec) {}, func(*gcConfig) {}},
		{"interval", func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.GC.Interval = "59m" }, func(c *gcConfig) { c.Collector.Interval = "59m" }},
		{"no interval is the CRD's default", func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.GC.Interval = "" }, func(*gcConfig) {}},
		{"dry run and concurrency", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.GC.Config = &batchv1alpha1.GCConfigSpec{DryRun: true, MaxConcurrency: 3}
		}, func(c *gcConfig) { c.DryRun, c.Collector.MaxConcurrency = true, 3 }},
		{"reconciler interval", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Reconciler: &batchv1alpha1.GCReconcilerConfig{Interval: "30s"}}
		}, func(c *gcConfig) { c.Reconciler.Interval = "30s" }},
		{"reconciler off, its interval still written as the chart does", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Reconciler: &batchv1alpha1.GCReconcilerConfig{Enabled: ptr.To(false), Interval: "5m"}}
		}, func(c *gcConfig) { c.Reconciler = reconcilerConfig{Enabled: false, Interval: "5m"} }},
		{"an empty reconciler keeps the defaults", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Reconciler: &batchv1alpha1.GCReconcilerConfig{}}
		}, func(*gcConfig) {}},
		{"reconciler enabled explicitly", func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			s.GC.Config = &batchv1alpha1.GCConfigSpec{Reconciler: &batchv1alpha1.GCReconcilerConfig{Enabled: ptr.To(true)}}
		}, func(*gcConfig) {}},
	})
}

func TestFileClientFor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		storage *batchv1alpha1.FileStorageSpec
		want    func(*fileClientConfig)
		err     string
	}{
		{name: "s3", storage: &batchv1alpha1.FileStorageSpec{S3: &batchv1alpha1.S3StorageSpec{
			Region: "eu", Bucket: "b", Endpoint: "https://s3", AccessKeyID: "AK", Prefix: "p/", UsePathStyle: true,
		}}, want: func(c *fileClientConfig) {
			c.S3 = s3ClientConfig{Region: "eu", Bucket: "b", Endpoint: "https://s3", AccessKeyID: "AK", Prefix: "p/", UsePathStyle: true, AutoCreateBucket: true}
		}},
		{name: "s3 autoCreateBucket false", storage: &batchv1alpha1.FileStorageSpec{S3: &batchv1alpha1.S3StorageSpec{
			Bucket: "files", AutoCreateBucket: ptr.To(false),
		}}, want: func(c *fileClientConfig) { c.S3.AutoCreateBucket = false }},
		{name: "fs keeps the s3 block's defaults", storage: &batchv1alpha1.FileStorageSpec{FS: &batchv1alpha1.FSStorageSpec{
			BasePath: "/data", ClaimName: "pvc",
		}}, want: func(c *fileClientConfig) {
			c.Type, c.FS.BasePath, c.S3 = "fs", "/data", s3ClientConfig{AutoCreateBucket: true}
		}},
		{name: "fs default base path", storage: &batchv1alpha1.FileStorageSpec{FS: &batchv1alpha1.FSStorageSpec{ClaimName: "pvc"}},
			want: func(c *fileClientConfig) { c.Type, c.S3 = "fs", s3ClientConfig{AutoCreateBucket: true} }},
		{name: "retry, unset fields keep the defaults", storage: &batchv1alpha1.FileStorageSpec{
			S3:    &batchv1alpha1.S3StorageSpec{Bucket: "files"},
			Retry: &batchv1alpha1.FileRetrySpec{MaxRetries: ptr.To[int32](0), MaxBackoff: "1m"},
		}, want: func(c *fileClientConfig) { c.Retry.MaxRetries, c.Retry.MaxBackoff = 0, "1m" }},
		{name: "none", storage: nil, err: "exactly one of s3 and fs"},
		{name: "neither", storage: &batchv1alpha1.FileStorageSpec{}, err: "exactly one of s3 and fs"},
		{name: "both", storage: &batchv1alpha1.FileStorageSpec{S3: &batchv1alpha1.S3StorageSpec{}, FS: &batchv1alpha1.FSStorageSpec{ClaimName: "pvc"}}, err: "exactly one of s3 and fs"},
		{name: "fs without a claim", storage: &batchv1alpha1.FileStorageSpec{FS: &batchv1alpha1.FSStorageSpec{}}, err: "claimName"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fileClientFor(tc.storage)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := defaultFileClient()
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestConfigFilesArePlainYAML checks the written text: integers as integers (the chart writes
// 2.592e+06), the backoff factor as a number, ports quoted.
func TestConfigFilesArePlainYAML(t *testing.T) {
	spec := minimalSpec()
	spec.Processor.Config = &batchv1alpha1.ProcessorConfigSpec{Concurrency: &batchv1alpha1.ConcurrencyConfig{
		AIMD: &batchv1alpha1.AIMDConfig{BackoffFactor: "0.3"},
	}}
	shared, _ := sharedConfigFor(&spec)
	api := apiServerConfigFor(&spec, shared)
	proc, _ := processorConfigFor(&spec, shared)
	var text strings.Builder
	for _, c := range []interface{}{api, proc} {
		data, err := marshalConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(data)
	}
	for _, want := range []string{
		"batch_event_ttl_seconds: 2592000\n", "max_size_bytes: 209715200\n", "default_expiration_seconds: 7776000\n",
		"default_output_expiration_seconds: 7776000\n", "backoff_factor: 0.3\n", `port: "8000"`, `observability_port: "8081"`,
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("config does not contain %q", want)
		}
	}
	if strings.Contains(text.String(), "e+") {
		t.Errorf("config has a number in scientific notation:\n%s", text.String())
	}
	if strings.Contains(text.String(), "send_fairness_header") {
		t.Errorf("send_fairness_header is written only when true")
	}
}

func TestAsyncConfigFiles(t *testing.T) {
	for _, tc := range []struct {
		name  string
		async batchv1alpha1.AsyncProcessorSpec
		want  map[string]string
	}{
		{"nothing to mount", batchv1alpha1.AsyncProcessorSpec{}, map[string]string{}},
		{"worker pools, JSON keys sorted as upstream's", batchv1alpha1.AsyncProcessorSpec{WorkerPools: []batchv1alpha1.AsyncWorkerPool{
			{Name: "sim-workers", Workers: 4, GateType: "local-max-concurrency", GateParams: map[string]string{"limit": "2"}},
			{Name: "plain", Workers: 1},
		}}, map[string]string{
			"worker-pools.json": `[{"gate_params":{"limit":"2"},"gate_type":"local-max-concurrency","id":"sim-workers","workers":4},{"id":"plain","workers":1}]`,
		}},
		{"request transforms", batchv1alpha1.AsyncProcessorSpec{TransformConfig: &batchv1alpha1.AsyncTransformConfig{
			RequestTransforms: []batchv1alpha1.AsyncRequestTransform{{Name: "gcs", Type: "gcs_uri_multipart", Parameters: map[string]string{
				"providers": `["whisper"]`, "bucket": "b",
			}}},
		}}, map[string]string{
			"transform-config.json": `{"requestTransforms":[{"name":"gcs","parameters":{"bucket":"b","providers":["whisper"]},"type":"gcs_uri_multipart"}]}`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := asyncConfigFiles(&tc.async)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTransformParameters(t *testing.T) {
	got := transformParameters(map[string]string{
		"list": `["a","b"]`, "object": `{"k":1}`, "number": "3", "bool": "true",
		"text": "whisper", "quoted": `"x"`, "null": "null", "empty": "",
	})
	want := map[string]string{
		"list": `["a","b"]`, "object": `{"k":1}`, "number": "3", "bool": "true",
		// A string stays the text it was; JSON null is not a value worth passing on.
		"text": `"whisper"`, "quoted": `"\"x\""`, "null": `"null"`, "empty": `""`,
	}
	for k, w := range want {
		if string(got[k]) != w {
			t.Errorf("%s = %s, want %s", k, got[k], w)
		}
		if !json.Valid(got[k]) {
			t.Errorf("%s = %s is not JSON", k, got[k])
		}
	}
	if transformParameters(nil) != nil {
		t.Errorf("no parameters must stay nil (omitted)")
	}
}

func TestAsyncQueues(t *testing.T) {
	gateways := map[string]batchv1alpha1.InferenceGatewaySpec{
		"llama-3":       {InferencePoolName: "llama-pool"},
		"llama-3-chat":  {InferencePoolName: "llama-pool"},
		"whisper-large": {InferencePoolName: "whisper-pool"},
		"no-pool":       {URL: "http://elsewhere"},
	}
	for _, tc := range []struct {
		name      string
		processor batchv1alpha1.ProcessorSpec
		want      []asyncQueueConfig
	}{
		{"queuesConfig is used as given", batchv1alpha1.ProcessorSpec{ModelGateways: gateways, AsyncConfig: &batchv1alpha1.AsyncProcessorSpec{
			Redis: &batchv1alpha1.AsyncRedisSpec{GateType: "ignored", QueuesConfig: []batchv1alpha1.AsyncQueueConfig{{
				Name: "llm-d-async:requests:sim-pool", WorkerPoolID: "w", IGWBaseURL: "http://sim", RequestPathURL: "/v1/chat/completions",
				GateType: "redis", GateParams: map[string]string{"address": "redis:6379"},
			}}},
		}}, []asyncQueueConfig{{
			QueueName: "llm-d-async:requests:sim-pool", WorkerPoolID: "w", IGWBaseURL: "http://sim", RequestPathURL: "/v1/chat/completions",
			GateType: "redis", GateParams: map[string]string{"address": "redis:6379"},
		}}},
		{"single-queue mode: one queue per distinct pool, sorted", batchv1alpha1.ProcessorSpec{ModelGateways: gateways, AsyncConfig: &batchv1alpha1.AsyncProcessorSpec{
			InferenceGateway: &batchv1alpha1.InferenceGatewaySpec{URL: "http://epp:8081"},
			Redis:            &batchv1alpha1.AsyncRedisSpec{GateType: "prometheus-saturation", GateParams: map[string]string{"threshold": "0.8"}},
		}}, []asyncQueueConfig{
			{QueueName: "llm-d-async:requests:llama-pool", IGWBaseURL: "http://epp:8081", RequestPathURL: "/v1/completions", GateType: "prometheus-saturation", GateParams: map[string]string{"threshold": "0.8"}},
			{QueueName: "llm-d-async:requests:whisper-pool", IGWBaseURL: "http://epp:8081", RequestPathURL: "/v1/completions", GateType: "prometheus-saturation", GateParams: map[string]string{"threshold": "0.8"}},
		}},
		{"single-queue mode without pools: no queue", batchv1alpha1.ProcessorSpec{AsyncConfig: &batchv1alpha1.AsyncProcessorSpec{
			Redis: &batchv1alpha1.AsyncRedisSpec{RequestPathURL: "/v1/chat/completions"},
		}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := asyncQueues(&tc.processor); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}
