package testcases

import (
	"fmt"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	networkpolicytestcases "github.com/llm-infra/llm-infra-operator/pkg/apis/networkpolicy/v1alpha1/testcases"
)

// Accepted are valid objects beyond the golden CRs: the smallest ones, every field set, and the
// edges of the cross-field rules.
var Accepted = append([]Case{
	{Name: "minimal sync", Base: BaseSync},
	{Name: "minimal async", Base: BaseAsync},
	{Name: "every field set (sync)", Base: BaseSync, Patch: `
spec:
  secretRef: {name: batch-gateway-secrets, namespace: shared-secrets}
  dbBackend: valkey
  redis: {enableTLS: true, insecure: false}
  fileStorage:
    s3: {region: eu-west-1, bucket: files, endpoint: "https://s3.eu-west-1.amazonaws.com", accessKeyId: AKIAEXAMPLE, prefix: batch/, usePathStyle: true, autoCreateBucket: false}
    retry: {maxRetries: 5, initialBackoff: 500ms, maxBackoff: 1m30s}
  apiServer:
    replicas: 2
    imagePullPolicy: IfNotPresent
    resources: {requests: {cpu: 250m, memory: 256Mi}, limits: {cpu: "2", memory: 1Gi}}
    config:
      port: 8443
      observabilityPort: 9443
      readTimeoutSeconds: 600
      writeTimeoutSeconds: 60
      idleTimeoutSeconds: 30
      inputHeaders: {tenant: X-Tenant}
      batchAPI: {eventTTLSeconds: 86400, passThroughHeaders: [Authorization, X-Request-Id]}
      fileAPI: {defaultExpirationSeconds: 86400, maxSizeBytes: 104857600, maxLineCount: 10000}
      enablePprof: true
      logging: {verbosity: 4}
  processor:
    replicas: 3
    imagePullPolicy: Always
    resources: {requests: {cpu: "1"}}
    dispatchMode: sync
    globalInferenceGateway:
      url: "https://inference-gateway.llm.svc:8443"
      requestTimeout: 10m
      maxRetries: 0
      initialBackoff: 2s
      maxBackoff: 2m
      inferenceObjective: batch
      tlsInsecureSkipVerify: false
      tlsCACertFile: /etc/.secrets/ca.crt
      tlsClientCertFile: /etc/.secrets/tls.crt
      tlsClientKeyFile: /etc/.secrets/tls.key
    asyncConfig: {resultPollTimeout: 45s}
    config:
      numWorkers: 40
      concurrency:
        global: 200
        perEndpoint: 20
        recovery: 10
        aimd: {enabled: true, min: 2, backoffFactor: "0.3", additiveIncrease: 3}
      defaultOutputExpirationSeconds: 604800
      progressTTLSeconds: 3600
      sendFairnessHeader: true
      enablePprof: true
      logging: {verbosity: 3}
  gc:
    replicas: 1
    imagePullPolicy: Never
    interval: 1h
    resources: {limits: {memory: 128Mi}}
    config: {dryRun: true, maxConcurrency: 4, logging: {verbosity: 1}}
  monitoring: {enabled: true}
  grafana: {enabled: true}
  tls:
    enabled: true
    certManager: {issuerName: batch-ca, issuerKind: Issuer, dnsNames: [gw-batch-gateway-apiserver.llm.svc]}
  httpRoute:
    enabled: true
    annotations: {example.com/team: batch}
    parentRefs: [{name: gateway, namespace: gateways, sectionName: https}]
  otel: {endpoint: "http://otel-collector.observability.svc:4317", insecure: true, sampler: parentbased_traceidratio, samplerArg: "0.1", redisTracing: true, postgresqlTracing: true}
  prometheusRule: {enabled: true, labels: {role: alert-rules}}
  imagePullSecrets: [{name: registry-creds}]
`},
	{Name: "every async field set", Base: BaseAsync, Patch: `
spec:
  processor:
    modelGateways:
      llama-3: {inferencePoolName: llama-pool, url: "http://ignored-in-async.llm.svc", inferenceObjective: batch}
      whisper: {inferencePoolName: whisper-pool}
    asyncConfig:
      replicas: 1
      resources: {requests: {cpu: 100m}}
      imagePullPolicy: IfNotPresent
      inferenceGateway: {url: "http://epp.llm.svc:8081"}
      concurrency: 16
      drainTimeout: 5m
      resultPollTimeout: 1m
      redis:
        requestPathURL: /v1/chat/completions
        pollIntervalMs: 100
        batchSize: 50
        queuesConfig:
        - {name: "llm-d-async:requests:llama-pool", workerPoolID: fast, igwBaseURL: "http://llama-epp.llm.svc:8000", requestPathURL: /v1/completions, gateType: prometheus-query, gateParams: {query: "1", fallback: "1.0"}}
        - {name: "llm-d-async:requests:whisper-pool", workerPoolID: fast}
      workerPools: [{name: fast, workers: 8, gateType: local-max-concurrency, gateParams: {limit: "4"}}]
      prometheusURL: http://prometheus.monitoring.svc:9090
      prometheusCacheTTL: 30s
      tls: {secretName: epp-tls, insecureSkipVerify: true, caCertKey: ca.crt, certKey: tls.crt, keyKey: tls.key}
      transformConfig: {requestTransforms: [{name: add-model, type: set-field, parameters: {field: model, value: "\"llama\""}}]}
      modelServerMonitor: {enabled: true, selector: {app: vllm}, port: metrics, path: /metrics, interval: 30s}
`},
	{Name: "sync with per-model urls", Base: BaseSync, Patch: `
spec:
  processor:
    globalInferenceGateway: null
    modelGateways:
      llama-3: {url: "http://llama.llm.svc:8000"}
      mistral: {url: "http://mistral.llm.svc:8000", inferencePoolName: shared}
      qwen: {url: "http://qwen.llm.svc:8000", inferencePoolName: shared}
`},
	{Name: "async with a single queue: gateType and the async-processor's url", Base: BaseAsync, Patch: `
spec:
  processor:
    asyncConfig:
      inferenceGateway: {url: "http://epp.llm.svc:8081"}
      redis: {queuesConfig: null, gateType: prometheus-saturation, gateParams: {saturation_threshold: "0.8"}}
`},
	{Name: "async with 128 models (the bound), each on its own pool", Base: BaseAsync, Patch: `{spec: {processor: {modelGateways: ` + models(127) + `}}}`},
	{Name: "tls with a Secret", Base: BaseSync, Patch: `{spec: {tls: {enabled: true, secretName: gw-tls}}}`},
	{Name: "tls with certManager and no enabled field", Base: BaseSync, Patch: `{spec: {tls: {certManager: {issuerName: batch-ca}}}}`},
	{Name: "tls disabled, nothing else", Base: BaseSync, Patch: `{spec: {tls: {enabled: false}}}`},
	{Name: "perEndpoint above its default, within global", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {global: 200, perEndpoint: 150}}}}}`},
	{Name: "perEndpoint equal to global", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {global: 7, perEndpoint: 7, aimd: {min: 7}}}}}}`},
	{Name: "aimd.min above perEndpoint with AIMD disabled", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {perEndpoint: 3, aimd: {enabled: false, min: 20}}}}}}`},
	{Name: "low perEndpoint with a lower aimd.min", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {perEndpoint: 3, aimd: {min: 1}}}}}}`},
	{Name: "replicas 0 everywhere", Base: BaseAsync, Patch: `{spec: {apiServer: {replicas: 0}, processor: {replicas: 0, asyncConfig: {replicas: 0}}, gc: {replicas: 0}}}`},
	{Name: "empty modelGateways beside globalInferenceGateway", Base: BaseSync, Patch: `{spec: {processor: {modelGateways: {}}}}`},
	{Name: "name of 63 characters (the bound)", Base: BaseSync, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, long(63))},

	// The orphan reconciler and the processor's heartbeat (issue 32): the heartbeat must be
	// shorter than the reconciler's interval while the reconciler runs.
	{Name: "heartbeat and reconciler at upstream's defaults", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 5m}}, gc: {config: {reconciler: {enabled: true, interval: 60m}}}}}`},
	{Name: "heartbeat and reconciler as upstream's dev-deploy.sh sets them", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 10s}}, gc: {config: {reconciler: {interval: 30s}}}}}`},
	{Name: "heartbeat a millisecond below the reconciler's interval", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 59m59.999s}}, gc: {config: {reconciler: {interval: 1h}}}}}`},
	{Name: "heartbeat below the default interval", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 59m}}}}`},
	{Name: "interval above the default heartbeat", Base: BaseSync, Patch: `{spec: {gc: {config: {reconciler: {interval: 5m1s}}}}}`},
	{Name: "heartbeat above the interval of a disabled reconciler", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 2h}}, gc: {config: {reconciler: {enabled: false, interval: 1m}}}}}`},
	{Name: "interval 0s of a disabled reconciler", Base: BaseSync, Patch: `{spec: {gc: {config: {reconciler: {enabled: false, interval: 0s}}}}}`},
	{Name: "heartbeat and interval at their size bounds", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 1.0000000000000s}}, gc: {config: {reconciler: {interval: 999999h999999h9h}}}}}`},

	// Admitted, and decided by the operator: the administrator's allowlist of ClusterIssuers
	// (issue 33, docs/cluster-policy.md).
	{Name: "a certificate from any ClusterIssuer", Base: BaseSync, Patch: `{spec: {tls: {enabled: true, certManager: {issuerName: letsencrypt-prod, issuerKind: ClusterIssuer, dnsNames: [batch.example.com]}}}}`},

	// Size bounds (issue 33): at each bound, admitted.
	{Name: "at the size bounds", Base: BaseSync, Patch: fmt.Sprintf(`
spec:
  secretRef: {name: %s, namespace: %s}
  apiServer:
    resources: {limits: %s}
    config:
      inputHeaders: %s
      batchAPI: {passThroughHeaders: %s}
  gc: {interval: %s}
  tls: {certManager: {issuerName: ca, dnsNames: %s}}
  prometheusRule: {labels: %s}
`, long(253), long(63), extendedResources(32), props(64, long(8192)), items(64, long(256)), "1111111111111111111111111111111s", items(100, "a.example.com"), props(64, long(63)))},
}, networkpolicytestcases.Accepted(BaseSync)...)

// Rejected are invalid objects, with the errors the API server returns.
var Rejected = append([]Case{
	// Names: the objects' names and labels are made of the CR's.
	{Name: "name of 64 characters", Base: BaseSync, Patch: fmt.Sprintf(`{metadata: {name: %s}}`, long(64)), Errors: []string{invalid("<nil>", v1alpha1.MessageName)}},
	{Name: "name with a dot", Base: BaseSync, Patch: `{metadata: {name: gw.v1}}`, Errors: []string{invalid("<nil>", v1alpha1.MessageName)}},
	{Name: "name in capitals", Base: BaseSync, Patch: `{metadata: {name: GW}}`, Errors: []string{`metadata.name: Invalid value: "GW": a lowercase RFC 1123 subdomain`}},

	// Required fields.
	{Name: "no spec", Base: BaseSync, Patch: `{spec: null}`, Errors: []string{missing("spec"), RulesNotChecked}},
	{Name: "no secretRef", Base: BaseSync, Patch: `{spec: {secretRef: null}}`, Errors: []string{missing("spec.secretRef"), RulesNotChecked}},
	{Name: "no fileStorage", Base: BaseSync, Patch: `{spec: {fileStorage: null}}`, Errors: []string{missing("spec.fileStorage"), RulesNotChecked}},
	{Name: "no apiServer", Base: BaseSync, Patch: `{spec: {apiServer: null}}`, Errors: []string{missing("spec.apiServer"), RulesNotChecked}},
	{Name: "no processor", Base: BaseSync, Patch: `{spec: {processor: null}}`, Errors: []string{missing("spec.processor"), RulesNotChecked}},
	{Name: "no gc", Base: BaseSync, Patch: `{spec: {gc: null}}`, Errors: []string{missing("spec.gc"), RulesNotChecked}},
	{Name: "no s3 bucket", Base: BaseSync, Patch: `{spec: {fileStorage: {s3: {bucket: null}}}}`, Errors: []string{missing("spec.fileStorage.s3.bucket"), RulesNotChecked}},
	{Name: "no fs claimName", Base: BaseAsync, Patch: `{spec: {fileStorage: {fs: {claimName: null, basePath: /data}}}}`, Errors: []string{missing("spec.fileStorage.fs.claimName"), RulesNotChecked}},
	{Name: "no certManager issuerName", Base: BaseSync, Patch: `{spec: {tls: {enabled: true, certManager: {issuerKind: Issuer}}}}`, Errors: []string{missing("spec.tls.certManager.issuerName"), RulesNotChecked}},
	{Name: "parentRef without name", Base: BaseSync, Patch: `{spec: {httpRoute: {enabled: true, parentRefs: [{namespace: gateways}]}}}`, Errors: []string{missing("spec.httpRoute.parentRefs[0].name"), RulesNotChecked}},
	{Name: "queue without name", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: {queuesConfig: [{igwBaseURL: "http://epp.llm.svc"}]}}}}}`, Errors: []string{missing("spec.processor.asyncConfig.redis.queuesConfig[0].name"), RulesNotChecked}},
	{Name: "worker pool without name", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {workerPools: [{workers: 2}]}}}}`, Errors: []string{missing("spec.processor.asyncConfig.workerPools[0].name"), RulesNotChecked}},
	{Name: "request transform without name and type", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {transformConfig: {requestTransforms: [{parameters: {a: b}}]}}}}}`,
		Errors: []string{missing("spec.processor.asyncConfig.transformConfig.requestTransforms[0].name"), missing("spec.processor.asyncConfig.transformConfig.requestTransforms[0].type"), RulesNotChecked}},

	// Enums.
	{Name: "dbBackend mysql", Base: BaseSync, Patch: `{spec: {dbBackend: mysql}}`, Errors: []string{unsupported("spec.dbBackend", "mysql"), RulesNotChecked}},
	{Name: "dispatchMode Async (case matters)", Base: BaseSync, Patch: `{spec: {processor: {dispatchMode: Async}}}`, Errors: []string{unsupported("spec.processor.dispatchMode", "Async"), RulesNotChecked}},
	{Name: "apiServer imagePullPolicy", Base: BaseSync, Patch: `{spec: {apiServer: {imagePullPolicy: Sometimes}}}`, Errors: []string{unsupported("spec.apiServer.imagePullPolicy", "Sometimes"), RulesNotChecked}},
	{Name: "processor imagePullPolicy", Base: BaseSync, Patch: `{spec: {processor: {imagePullPolicy: always}}}`, Errors: []string{unsupported("spec.processor.imagePullPolicy", "always"), RulesNotChecked}},
	{Name: "gc imagePullPolicy", Base: BaseSync, Patch: `{spec: {gc: {imagePullPolicy: Daily}}}`, Errors: []string{unsupported("spec.gc.imagePullPolicy", "Daily"), RulesNotChecked}},
	{Name: "asyncConfig imagePullPolicy", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {imagePullPolicy: Later}}}}`, Errors: []string{unsupported("spec.processor.asyncConfig.imagePullPolicy", "Later"), RulesNotChecked}},
	{Name: "certManager issuerKind", Base: BaseSync, Patch: `{spec: {tls: {enabled: true, certManager: {issuerName: ca, issuerKind: Certificate}}}}`, Errors: []string{unsupported("spec.tls.certManager.issuerKind", "Certificate"), RulesNotChecked}},

	// Patterns.
	{Name: "s3 endpoint without scheme", Base: BaseSync, Patch: `{spec: {fileStorage: {s3: {endpoint: s3.example.com}}}}`, Errors: []string{pattern("spec.fileStorage.s3.endpoint", "s3.example.com", urlPattern)}},
	{Name: "otel endpoint grpc scheme", Base: BaseSync, Patch: `{spec: {otel: {endpoint: "grpc://collector:4317"}}}`, Errors: []string{pattern("spec.otel.endpoint", "grpc://collector:4317", urlPattern)}},
	{Name: "globalInferenceGateway url ftp", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {url: "ftp://gw"}}}}`, Errors: []string{pattern("spec.processor.globalInferenceGateway.url", "ftp://gw", urlPattern)}},
	{Name: "modelGateways url without scheme", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: null, modelGateways: {m: {url: "gw:8000"}}}}}`, Errors: []string{pattern("spec.processor.modelGateways.m.url", "gw:8000", urlPattern)}},
	{Name: "queue igwBaseURL without scheme", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: {queuesConfig: [{name: q, igwBaseURL: epp:8000}]}}}}}`, Errors: []string{pattern("spec.processor.asyncConfig.redis.queuesConfig[0].igwBaseURL", "epp:8000", urlPattern)}},
	{Name: "requestTimeout without unit", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {requestTimeout: "300"}}}}`, Errors: []string{pattern("spec.processor.globalInferenceGateway.requestTimeout", "300", durationPattern)}},
	{Name: "initialBackoff in microseconds", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {initialBackoff: 500us}}}}`, Errors: []string{pattern("spec.processor.globalInferenceGateway.initialBackoff", "500us", durationPattern)}},
	{Name: "maxBackoff negative", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {maxBackoff: "-1s"}}}}`, Errors: []string{pattern("spec.processor.globalInferenceGateway.maxBackoff", "-1s", durationPattern)}},
	{Name: "fileStorage retry initialBackoff", Base: BaseSync, Patch: `{spec: {fileStorage: {retry: {initialBackoff: 1sec}}}}`, Errors: []string{pattern("spec.fileStorage.retry.initialBackoff", "1sec", durationPattern)}},
	{Name: "fileStorage retry maxBackoff", Base: BaseSync, Patch: `{spec: {fileStorage: {retry: {maxBackoff: 10}}}}`, Errors: []string{`spec.fileStorage.retry.maxBackoff: Invalid value: "integer": spec.fileStorage.retry.maxBackoff in body must be of type string`, RulesNotChecked}},
	{Name: "gc interval in days", Base: BaseSync, Patch: `{spec: {gc: {interval: 1d}}}`, Errors: []string{pattern("spec.gc.interval", "1d", durationPattern)}},
	{Name: "drainTimeout", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {drainTimeout: two-minutes}}}}`, Errors: []string{pattern("spec.processor.asyncConfig.drainTimeout", "two-minutes", durationPattern)}},
	{Name: "resultPollTimeout without digits after the dot", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {resultPollTimeout: 1.s}}}}`, Errors: []string{pattern("spec.processor.asyncConfig.resultPollTimeout", "1.s", durationPattern)}},
	{Name: "prometheusCacheTTL", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {prometheusCacheTTL: 30S}}}}`, Errors: []string{pattern("spec.processor.asyncConfig.prometheusCacheTTL", "30S", durationPattern)}},
	{Name: "modelServerMonitor interval", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {modelServerMonitor: {enabled: true, interval: soon}}}}}`, Errors: []string{pattern("spec.processor.asyncConfig.modelServerMonitor.interval", "soon", durationPattern)}},
	{Name: "heartbeatInterval in days", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 1d}}}}`, Errors: []string{pattern("spec.processor.config.heartbeatInterval", "1d", boundedDurationPattern)}},
	{Name: "heartbeatInterval without unit", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: "300"}}}}`, Errors: []string{pattern("spec.processor.config.heartbeatInterval", "300", boundedDurationPattern)}},
	{Name: "heartbeatInterval negative", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: "-5m"}}}}`, Errors: []string{pattern("spec.processor.config.heartbeatInterval", "-5m", boundedDurationPattern)}},
	{Name: "reconciler interval in microseconds", Base: BaseSync, Patch: `{spec: {gc: {config: {reconciler: {interval: 500us}}}}}`, Errors: []string{pattern("spec.gc.config.reconciler.interval", "500us", boundedDurationPattern)}},
	// Seven digits: a number the pattern bounds, so that no admitted value overflows a duration.
	{Name: "reconciler interval of a seven-digit number", Base: BaseSync, Patch: `{spec: {gc: {config: {reconciler: {interval: 1000000m}}}}}`, Errors: []string{pattern("spec.gc.config.reconciler.interval", "1000000m", boundedDurationPattern)}},
	{Name: "aimd backoffFactor 1.5", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {aimd: {backoffFactor: "1.5"}}}}}}`, Errors: []string{pattern("spec.processor.config.concurrency.aimd.backoffFactor", "1.5", `^0\.[0-9]+$`)}},

	// Numeric bounds.
	{Name: "apiServer replicas -1", Base: BaseSync, Patch: `{spec: {apiServer: {replicas: -1}}}`, Errors: []string{minimum("spec.apiServer.replicas", -1, 0)}},
	{Name: "processor replicas -1", Base: BaseSync, Patch: `{spec: {processor: {replicas: -1}}}`, Errors: []string{minimum("spec.processor.replicas", -1, 0)}},
	{Name: "gc replicas -1", Base: BaseSync, Patch: `{spec: {gc: {replicas: -1}}}`, Errors: []string{minimum("spec.gc.replicas", -1, 0)}},
	{Name: "asyncConfig replicas -1", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {replicas: -1}}}}`, Errors: []string{minimum("spec.processor.asyncConfig.replicas", -1, 0)}},
	{Name: "port 0", Base: BaseSync, Patch: `{spec: {apiServer: {config: {port: 0}}}}`, Errors: []string{minimum("spec.apiServer.config.port", 0, 1)}},
	{Name: "port 65536", Base: BaseSync, Patch: `{spec: {apiServer: {config: {port: 65536}}}}`, Errors: []string{maximum("spec.apiServer.config.port", 65536, 65535)}},
	{Name: "observabilityPort 70000", Base: BaseSync, Patch: `{spec: {apiServer: {config: {observabilityPort: 70000}}}}`, Errors: []string{maximum("spec.apiServer.config.observabilityPort", 70000, 65535)}},
	{Name: "fileStorage retry maxRetries -1", Base: BaseSync, Patch: `{spec: {fileStorage: {retry: {maxRetries: -1}}}}`, Errors: []string{minimum("spec.fileStorage.retry.maxRetries", -1, 0)}},
	{Name: "concurrency global 0", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {global: 0, perEndpoint: 1, aimd: {min: 1}}}}}}`,
		// The rule compares the value given, 0, not the default.
		Errors: []string{minimum("spec.processor.config.concurrency.global", 0, 1), invalid("spec.processor.config.concurrency.perEndpoint", v1alpha1.MessagePerEndpointAboveGlobal)}},
	{Name: "concurrency perEndpoint 0", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {perEndpoint: 0, aimd: {enabled: false}}}}}}`, Errors: []string{minimum("spec.processor.config.concurrency.perEndpoint", 0, 1)}},
	{Name: "concurrency recovery 0", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {recovery: 0}}}}}`, Errors: []string{minimum("spec.processor.config.concurrency.recovery", 0, 1)}},
	{Name: "aimd min 0", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {aimd: {min: 0}}}}}}`, Errors: []string{minimum("spec.processor.config.concurrency.aimd.min", 0, 1)}},
	{Name: "aimd additiveIncrease 0", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {aimd: {additiveIncrease: 0}}}}}}`, Errors: []string{minimum("spec.processor.config.concurrency.aimd.additiveIncrease", 0, 1)}},
	{Name: "async concurrency 0", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {concurrency: 0}}}}`, Errors: []string{minimum("spec.processor.asyncConfig.concurrency", 0, 1)}},
	{Name: "redis pollIntervalMs 99", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: {pollIntervalMs: 99}}}}}`, Errors: []string{minimum("spec.processor.asyncConfig.redis.pollIntervalMs", 99, 100)}},
	{Name: "redis batchSize 0", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: {batchSize: 0}}}}}`, Errors: []string{minimum("spec.processor.asyncConfig.redis.batchSize", 0, 1)}},
	{Name: "worker pool workers 0", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {workerPools: [{name: p, workers: 0}]}}}}`, Errors: []string{minimum("spec.processor.asyncConfig.workerPools[0].workers", 0, 1)}},

	// Lengths and sizes.
	{Name: "s3 bucket empty", Base: BaseSync, Patch: `{spec: {fileStorage: {s3: {bucket: ""}}}}`, Errors: []string{`spec.fileStorage.s3.bucket: Invalid value: "": spec.fileStorage.s3.bucket in body should be at least 1 chars long`}},
	{Name: "s3 bucket 64 characters", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {fileStorage: {s3: {bucket: %s}}}}`, long(64)), Errors: []string{tooLong("spec.fileStorage.s3.bucket", 63), RulesNotChecked}},
	{Name: "s3 region", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {fileStorage: {s3: {region: %s}}}}`, long(254)), Errors: []string{tooLong("spec.fileStorage.s3.region", 253), RulesNotChecked}},
	{Name: "s3 endpoint", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {fileStorage: {s3: {endpoint: %q}}}}`, longURL(2049)), Errors: []string{tooLong("spec.fileStorage.s3.endpoint", 2048), RulesNotChecked}},
	{Name: "s3 accessKeyId", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {fileStorage: {s3: {accessKeyId: %s}}}}`, long(1025)), Errors: []string{tooLong("spec.fileStorage.s3.accessKeyId", 1024), RulesNotChecked}},
	{Name: "s3 prefix", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {fileStorage: {s3: {prefix: %s}}}}`, long(1025)), Errors: []string{tooLong("spec.fileStorage.s3.prefix", 1024), RulesNotChecked}},
	{Name: "fs basePath", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {fileStorage: {fs: {basePath: /%s}}}}`, long(4096)), Errors: []string{tooLong("spec.fileStorage.fs.basePath", 4096), RulesNotChecked}},
	{Name: "fs claimName", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {fileStorage: {fs: {claimName: %s}}}}`, long(254)), Errors: []string{tooLong("spec.fileStorage.fs.claimName", 253), RulesNotChecked}},
	{Name: "tls secretName", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {tls: {enabled: true, secretName: %s}}}`, long(254)), Errors: []string{tooLong("spec.tls.secretName", 253), RulesNotChecked}},
	{Name: "certManager issuerName", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {tls: {enabled: true, certManager: {issuerName: %s}}}}`, long(254)), Errors: []string{tooLong("spec.tls.certManager.issuerName", 253), RulesNotChecked}},
	{Name: "certManager dnsNames item", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {tls: {enabled: true, certManager: {issuerName: ca, dnsNames: [ok.example.com, %s]}}}}`, long(254)), Errors: []string{tooLong("spec.tls.certManager.dnsNames[1]", 253), RulesNotChecked}},
	{Name: "parentRef name", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {httpRoute: {parentRefs: [{name: %s}]}}}`, long(254)), Errors: []string{tooLong("spec.httpRoute.parentRefs[0].name", 253), RulesNotChecked}},
	{Name: "parentRef namespace", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {httpRoute: {parentRefs: [{name: gw, namespace: %s}]}}}`, long(64)), Errors: []string{tooLong("spec.httpRoute.parentRefs[0].namespace", 63), RulesNotChecked}},
	{Name: "parentRef sectionName", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {httpRoute: {parentRefs: [{name: gw, sectionName: %s}]}}}`, long(254)), Errors: []string{tooLong("spec.httpRoute.parentRefs[0].sectionName", 253), RulesNotChecked}},
	{Name: "otel sampler", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {otel: {sampler: %s}}}`, long(254)), Errors: []string{tooLong("spec.otel.sampler", 253), RulesNotChecked}},
	{Name: "otel samplerArg", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {otel: {samplerArg: %s}}}`, long(254)), Errors: []string{tooLong("spec.otel.samplerArg", 253), RulesNotChecked}},
	{Name: "otel endpoint", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {otel: {endpoint: %q}}}`, longURL(2049)), Errors: []string{tooLong("spec.otel.endpoint", 2048), RulesNotChecked}},
	{Name: "passThroughHeaders item", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {apiServer: {config: {batchAPI: {passThroughHeaders: [%s]}}}}}`, long(257)), Errors: []string{tooLong("spec.apiServer.config.batchAPI.passThroughHeaders[0]", 256), RulesNotChecked}},
	{Name: "inference gateway url", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {processor: {globalInferenceGateway: {url: %q}}}}`, longURL(2049)), Errors: []string{tooLong("spec.processor.globalInferenceGateway.url", 2048), RulesNotChecked}},
	{Name: "inferencePoolName", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {modelGateways: {llama-3: {inferencePoolName: %s}}}}}`, long(254)), Errors: []string{tooLong("spec.processor.modelGateways.llama-3.inferencePoolName", 253), RulesNotChecked}},
	{Name: "requestTimeout", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {requestTimeout: "1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1h1"}}}}`, Errors: []string{tooLong("spec.processor.globalInferenceGateway.requestTimeout", 32), RulesNotChecked}},
	{Name: "inferenceObjective", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {processor: {globalInferenceGateway: {inferenceObjective: %s}}}}`, long(254)), Errors: []string{tooLong("spec.processor.globalInferenceGateway.inferenceObjective", 253), RulesNotChecked}},
	{Name: "tlsCACertFile", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {processor: {globalInferenceGateway: {tlsCACertFile: /%s}}}}`, long(4096)), Errors: []string{tooLong("spec.processor.globalInferenceGateway.tlsCACertFile", 4096), RulesNotChecked}},
	{Name: "aimd backoffFactor", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {aimd: {backoffFactor: "0.12345678901234567"}}}}}}`, Errors: []string{tooLong("spec.processor.config.concurrency.aimd.backoffFactor", 16), RulesNotChecked}},
	{Name: "resultPollTimeout too long", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {resultPollTimeout: "1s1s1s1s1s1s1s1s1s1s1s1s1s1s1s1s1s"}}}}`, Errors: []string{tooLong("spec.processor.asyncConfig.resultPollTimeout", 32), RulesNotChecked}},
	{Name: "redis requestPathURL", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {asyncConfig: {redis: {requestPathURL: /%s}}}}}`, long(2048)), Errors: []string{tooLong("spec.processor.asyncConfig.redis.requestPathURL", 2048), RulesNotChecked}},
	{Name: "redis gateType", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {asyncConfig: {redis: {gateType: %s}}}}}`, long(254)), Errors: []string{tooLong("spec.processor.asyncConfig.redis.gateType", 253), RulesNotChecked}},
	{Name: "queue name", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {asyncConfig: {redis: {queuesConfig: [{name: %s}]}}}}}`, long(254)), Errors: []string{tooLong("spec.processor.asyncConfig.redis.queuesConfig[0].name", 253), RulesNotChecked}},
	{Name: "prometheusURL", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {asyncConfig: {prometheusURL: %q}}}}`, longURL(2049)), Errors: []string{tooLong("spec.processor.asyncConfig.prometheusURL", 2048), RulesNotChecked}},
	{Name: "async tls caCertKey", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {asyncConfig: {tls: {secretName: s, caCertKey: %s}}}}}`, long(254)), Errors: []string{tooLong("spec.processor.asyncConfig.tls.caCertKey", 253), RulesNotChecked}},
	{Name: "request transform type", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {asyncConfig: {transformConfig: {requestTransforms: [{name: t, type: %s}]}}}}}`, long(254)), Errors: []string{tooLong("spec.processor.asyncConfig.transformConfig.requestTransforms[0].type", 253), RulesNotChecked}},
	{Name: "modelServerMonitor path", Base: BaseAsync, Patch: fmt.Sprintf(`{spec: {processor: {asyncConfig: {modelServerMonitor: {path: /%s}}}}}`, long(2048)), Errors: []string{tooLong("spec.processor.asyncConfig.modelServerMonitor.path", 2048), RulesNotChecked}},
	{Name: "21 imagePullSecrets", Base: BaseSync, Patch: `{spec: {imagePullSecrets: ` + items(21, "{name: creds}") + `}}`, Errors: []string{"spec.imagePullSecrets: Too many: 21: must have at most 20 items", RulesNotChecked}},
	{Name: "129 models", Base: BaseAsync, Patch: `{spec: {processor: {modelGateways: ` + models(128) + `}}}`, Errors: []string{"spec.processor.modelGateways: Too many: 129: must have at most 128 items", RulesNotChecked}},

	// Types and unknown fields.
	{Name: "replicas as a string", Base: BaseSync, Patch: `{spec: {apiServer: {replicas: one}}}`, Errors: []string{`spec.apiServer.replicas: Invalid value: "string": spec.apiServer.replicas in body must be of type integer`, RulesNotChecked}},
	{Name: "unknown spec field", Base: BaseSync, Patch: `{spec: {replicas: 3}}`, Errors: []string{`unknown field "spec.replicas"`}},
	{Name: "an older upstream's asyncConfig.values", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {values: {ap: {concurrency: 2}}}}}}`, Errors: []string{`unknown field "spec.processor.asyncConfig.values"`}},

	// Upstream's CEL rules.
	{Name: "secretRef name empty", Base: BaseSync, Patch: `{spec: {secretRef: {name: ""}}}`, Errors: []string{required("spec.secretRef.name", v1alpha1.MessageSecretRefName)}},
	{Name: "secretRef without name", Base: BaseSync, Patch: `{spec: {secretRef: {name: null, namespace: shared}}}`, Errors: []string{required("spec.secretRef.name", v1alpha1.MessageSecretRefName)}},
	{Name: "fileStorage s3 and fs", Base: BaseSync, Patch: `{spec: {fileStorage: {fs: {claimName: files}}}}`, Errors: []string{invalid("spec.fileStorage", v1alpha1.MessageFileStorageExactlyOne)}},
	{Name: "fileStorage with neither s3 nor fs", Base: BaseSync, Patch: `{spec: {fileStorage: {s3: null, retry: {maxRetries: 1}}}}`, Errors: []string{invalid("spec.fileStorage", v1alpha1.MessageFileStorageExactlyOne)}},
	{Name: "fs claimName empty", Base: BaseAsync, Patch: `{spec: {fileStorage: {fs: {claimName: ""}}}}`, Errors: []string{required("spec.fileStorage.fs.claimName", v1alpha1.MessageFSClaimName)}},
	{Name: "tls enabled without a certificate", Base: BaseSync, Patch: `{spec: {tls: {enabled: true}}}`, Errors: []string{invalid("spec.tls", v1alpha1.MessageTLSNeedsCertificate)}},
	{Name: "tls enabled with an empty secretName", Base: BaseSync, Patch: `{spec: {tls: {enabled: true, secretName: ""}}}`, Errors: []string{invalid("spec.tls", v1alpha1.MessageTLSNeedsCertificate)}},
	{Name: "tls secretName and certManager", Base: BaseSync, Patch: `{spec: {tls: {enabled: true, secretName: gw-tls, certManager: {issuerName: ca}}}}`, Errors: []string{invalid("spec.tls", v1alpha1.MessageTLSOneCertificateSource)}},
	{Name: "certManager issuerName empty", Base: BaseSync, Patch: `{spec: {tls: {enabled: true, certManager: {issuerName: ""}}}}`,
		Errors: []string{`spec.tls.certManager.issuerName: Invalid value: "": spec.tls.certManager.issuerName in body should be at least 1 chars long`, required("spec.tls.certManager.issuerName", v1alpha1.MessageCertManagerIssuerName)}},
	{Name: "tlsInsecureSkipVerify on the global gateway", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {tlsInsecureSkipVerify: true}}}}`, Errors: []string{forbidden("spec.processor.globalInferenceGateway.tlsInsecureSkipVerify", v1alpha1.MessageTLSInsecureSkipVerify)}},
	{Name: "tlsInsecureSkipVerify on a model gateway", Base: BaseAsync, Patch: `{spec: {processor: {modelGateways: {llama-3: {tlsInsecureSkipVerify: true}}}}}`, Errors: []string{forbidden("spec.processor.modelGateways[llama-3].tlsInsecureSkipVerify", v1alpha1.MessageTLSInsecureSkipVerify)}},
	{Name: "tlsInsecureSkipVerify on the async-processor's gateway", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {inferenceGateway: {url: "https://epp", tlsInsecureSkipVerify: true}}}}}`, Errors: []string{forbidden("spec.processor.asyncConfig.inferenceGateway.tlsInsecureSkipVerify", v1alpha1.MessageTLSInsecureSkipVerify)}},
	{Name: "async without asyncConfig", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: null}}}`, Errors: []string{required("spec.processor.asyncConfig", v1alpha1.MessageAsyncConfigRequired)}},
	{Name: "no inference gateway", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: null}}}`, Errors: []string{required("spec.processor", v1alpha1.MessageInferenceGatewayRequired)}},
	{Name: "empty modelGateways and no global gateway", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: null, modelGateways: {}}}}`, Errors: []string{required("spec.processor", v1alpha1.MessageInferenceGatewayRequired)}},
	{Name: "global gateway and modelGateways", Base: BaseSync, Patch: `{spec: {processor: {modelGateways: {m: {url: "http://m"}}}}}`, Errors: []string{forbidden("spec.processor.globalInferenceGateway", v1alpha1.MessageInferenceGatewayExclusive)}},

	// Cross-field rules upstream left to a crash loop.
	{Name: "async with a global gateway", Base: BaseAsync, Patch: `{spec: {processor: {modelGateways: null, globalInferenceGateway: {url: "http://gw"}}}}`, Errors: []string{forbidden("spec.processor.globalInferenceGateway", v1alpha1.MessageAsyncGlobalGateway)}},
	{Name: "async with a global gateway and modelGateways", Base: BaseAsync, Patch: `{spec: {processor: {globalInferenceGateway: {url: "http://gw"}}}}`,
		Errors: []string{forbidden("spec.processor.globalInferenceGateway", v1alpha1.MessageInferenceGatewayExclusive), forbidden("spec.processor.globalInferenceGateway", v1alpha1.MessageAsyncGlobalGateway)}},
	{Name: "async model without inferencePoolName", Base: BaseAsync, Patch: `{spec: {processor: {modelGateways: {whisper: {url: "http://whisper"}}}}}`, Errors: []string{required("spec.processor.modelGateways", v1alpha1.MessageAsyncPoolName)}},
	{Name: "async model with an empty inferencePoolName", Base: BaseAsync, Patch: `{spec: {processor: {modelGateways: {llama-3: {inferencePoolName: ""}}}}}`, Errors: []string{required("spec.processor.modelGateways", v1alpha1.MessageAsyncPoolName)}},
	{Name: "sync global gateway without url", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {url: null, requestTimeout: 5m}}}}`, Errors: []string{required("spec.processor.globalInferenceGateway.url", v1alpha1.MessageSyncGlobalURL)}},
	{Name: "dispatchMode unset, global gateway with an empty url", Base: BaseSync, Patch: `{spec: {processor: {globalInferenceGateway: {url: ""}}}}`,
		Errors: []string{pattern("spec.processor.globalInferenceGateway.url", "", urlPattern), required("spec.processor.globalInferenceGateway.url", v1alpha1.MessageSyncGlobalURL)}},
	{Name: "sync model without url", Base: BaseSync, Patch: `{spec: {processor: {dispatchMode: sync, globalInferenceGateway: null, modelGateways: {llama-3: {url: "http://llama"}, mistral: {inferencePoolName: mistral-pool}}}}}`, Errors: []string{required("spec.processor.modelGateways", v1alpha1.MessageSyncModelURL)}},
	{Name: "async models sharing a pool", Base: BaseAsync, Patch: `{spec: {processor: {modelGateways: {llama-3-8b: {inferencePoolName: llama-pool}}}}}`, Errors: []string{invalid("spec.processor.modelGateways", v1alpha1.MessageAsyncPoolNameUnique)}},
	{Name: "async asyncConfig without redis", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: null, inferenceGateway: {url: "http://epp"}}}}}`, Errors: []string{required("spec.processor.asyncConfig.redis", v1alpha1.MessageAsyncRedis)}},
	{Name: "async asyncConfig without redis or url", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: null, drainTimeout: 1m}}}}`,
		Errors: []string{required("spec.processor.asyncConfig.redis", v1alpha1.MessageAsyncRedis), required("spec.processor.asyncConfig", v1alpha1.MessageAsyncTarget)}},
	{Name: "async without the async-processor's url or queues", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: {queuesConfig: null, gateType: redis}}}}}`, Errors: []string{required("spec.processor.asyncConfig", v1alpha1.MessageAsyncTarget)}},
	{Name: "async with an empty queuesConfig and no url", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: {queuesConfig: []}}}}}`, Errors: []string{required("spec.processor.asyncConfig", v1alpha1.MessageAsyncTarget)}},
	{Name: "async redis gateType with queuesConfig", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {redis: {gateType: prometheus-saturation}}}}}`, Errors: []string{forbidden("spec.processor.asyncConfig.redis.gateType", v1alpha1.MessageAsyncGateTypeAndQueues)}},
	{Name: "perEndpoint above global", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {global: 20, perEndpoint: 30}}}}}`, Errors: []string{invalid("spec.processor.config.concurrency.perEndpoint", v1alpha1.MessagePerEndpointAboveGlobal)}},
	{Name: "perEndpoint above the default global", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {perEndpoint: 150}}}}}`, Errors: []string{invalid("spec.processor.config.concurrency.perEndpoint", v1alpha1.MessagePerEndpointAboveGlobal)}},
	{Name: "global below the default perEndpoint", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {global: 5, aimd: {min: 1}}}}}}`, Errors: []string{invalid("spec.processor.config.concurrency.perEndpoint", v1alpha1.MessagePerEndpointAboveGlobal)}},
	{Name: "aimd.min above perEndpoint", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {perEndpoint: 8, aimd: {min: 9}}}}}}`, Errors: []string{invalid("spec.processor.config.concurrency.aimd.min", v1alpha1.MessageAIMDMinAbovePerEndpoint)}},
	{Name: "default aimd.min above a low perEndpoint", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {perEndpoint: 3}}}}}`, Errors: []string{invalid("spec.processor.config.concurrency.aimd.min", v1alpha1.MessageAIMDMinAbovePerEndpoint)}},
	{Name: "aimd.min above the default perEndpoint, AIMD enabled", Base: BaseSync, Patch: `{spec: {processor: {config: {concurrency: {aimd: {enabled: true, min: 11}}}}}}`, Errors: []string{invalid("spec.processor.config.concurrency.aimd.min", v1alpha1.MessageAIMDMinAbovePerEndpoint)}},
	{Name: "heartbeat equal to the reconciler's interval", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 30s}}, gc: {config: {reconciler: {interval: 30s}}}}}`,
		Errors: []string{invalid("spec.processor.config.heartbeatInterval", v1alpha1.MessageHeartbeatBelowReconcilerInterval)}},
	{Name: "heartbeat equal to the default interval, in other units", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 1h}}}}`,
		Errors: []string{invalid("spec.processor.config.heartbeatInterval", v1alpha1.MessageHeartbeatBelowReconcilerInterval)}},
	{Name: "default heartbeat above the reconciler's interval", Base: BaseSync, Patch: `{spec: {gc: {config: {reconciler: {interval: 1m}}}}}`,
		Errors: []string{invalid("spec.processor.config.heartbeatInterval", v1alpha1.MessageHeartbeatBelowReconcilerInterval)}},
	{Name: "heartbeat above the interval of a reconciler enabled explicitly", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 90s}}, gc: {config: {reconciler: {enabled: true, interval: 1m}}}}}`,
		Errors: []string{invalid("spec.processor.config.heartbeatInterval", v1alpha1.MessageHeartbeatBelowReconcilerInterval)}},
	{Name: "reconciler interval 0s while enabled", Base: BaseSync, Patch: `{spec: {gc: {config: {reconciler: {interval: 0s}}}}}`,
		Errors: []string{invalid("spec.processor.config.heartbeatInterval", v1alpha1.MessageHeartbeatBelowReconcilerInterval)}},
	{Name: "heartbeat 0s", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 0s}}}}`,
		Errors: []string{invalid("spec.processor.config.heartbeatInterval", v1alpha1.MessageHeartbeatPositive)}},
	{Name: "heartbeat 0.0m with the reconciler off", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 0.0m}}, gc: {config: {reconciler: {enabled: false}}}}}`,
		Errors: []string{invalid("spec.processor.config.heartbeatInterval", v1alpha1.MessageHeartbeatPositive)}},

	// Resource claims: the pods have no resourceClaims for a claim to name (issue 33).
	{Name: "apiServer resource claims", Base: BaseSync, Patch: `{spec: {apiServer: {resources: {claims: [{name: gpu}]}}}}`,
		Errors: []string{forbidden("spec.apiServer.resources.claims", v1alpha1.MessageResourceClaims)}},
	{Name: "processor resource claims", Base: BaseSync, Patch: `{spec: {processor: {resources: {claims: [{name: gpu}]}}}}`,
		Errors: []string{forbidden("spec.processor.resources.claims", v1alpha1.MessageResourceClaims)}},
	{Name: "gc resource claims", Base: BaseSync, Patch: `{spec: {gc: {resources: {claims: [{name: gpu}]}}}}`,
		Errors: []string{forbidden("spec.gc.resources.claims", v1alpha1.MessageResourceClaims)}},
	{Name: "async-processor resource claims", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {resources: {claims: [{name: gpu}]}}}}}`,
		Errors: []string{forbidden("spec.processor.asyncConfig.resources.claims", v1alpha1.MessageResourceClaims)}},

	// Size bounds (issue 33): one past each bound, refused.
	{Name: "65 passThroughHeaders", Base: BaseSync, Patch: `{spec: {apiServer: {config: {batchAPI: {passThroughHeaders: ` + items(65, "X-A") + `}}}}}`,
		Errors: []string{tooMany("spec.apiServer.config.batchAPI.passThroughHeaders", 65, 64), RulesNotChecked}},
	{Name: "a passThroughHeader of 257", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {apiServer: {config: {batchAPI: {passThroughHeaders: [%s]}}}}}`, long(257)),
		Errors: []string{tooLong("spec.apiServer.config.batchAPI.passThroughHeaders[0]", 256), RulesNotChecked}},
	{Name: "65 inputHeaders", Base: BaseSync, Patch: `{spec: {apiServer: {config: {inputHeaders: ` + props(65, "v") + `}}}}`,
		Errors: []string{tooMany("spec.apiServer.config.inputHeaders", 65, 64), RulesNotChecked}},
	{Name: "an inputHeader of 8193", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {apiServer: {config: {inputHeaders: {X-A: %s}}}}}`, long(8193)),
		Errors: []string{tooLong("spec.apiServer.config.inputHeaders.X-A", 8192), RulesNotChecked}},
	{Name: "secretRef name of 254", Base: BaseSync, Patch: fmt.Sprintf(`{spec: {secretRef: {name: %s}}}`, long(254)),
		Errors: []string{tooLong("spec.secretRef.name", 253), RulesNotChecked}},
	{Name: "17 resource claims", Base: BaseSync, Patch: `{spec: {gc: {resources: {claims: ` + numbered(17, "{name: c%d}") + `}}}}`,
		Errors: []string{tooMany("spec.gc.resources.claims", 17, 16), RulesNotChecked}},
	{Name: "101 dnsNames", Base: BaseSync, Patch: `{spec: {tls: {certManager: {issuerName: ca, dnsNames: ` + items(101, "a.example.com") + `}}}}`,
		Errors: []string{tooMany("spec.tls.certManager.dnsNames", 101, 100), RulesNotChecked}},
	{Name: "gc interval of 33", Base: BaseSync, Patch: `{spec: {gc: {interval: 11111111111111111111111111111111s}}}`,
		Errors: []string{tooLong("spec.gc.interval", 32), RulesNotChecked}},
	{Name: "heartbeatInterval of 17", Base: BaseSync, Patch: `{spec: {processor: {config: {heartbeatInterval: 1.00000000000000s}}}}`,
		Errors: []string{tooLong("spec.processor.config.heartbeatInterval", 16), RulesNotChecked}},
	{Name: "reconciler interval of 17", Base: BaseSync, Patch: `{spec: {gc: {config: {reconciler: {interval: 1.00000000000000h}}}}}`,
		Errors: []string{tooLong("spec.gc.config.reconciler.interval", 16), RulesNotChecked}},
	{Name: "65 workerPools", Base: BaseAsync, Patch: `{spec: {processor: {asyncConfig: {workerPools: ` + items(65, "{name: p}") + `}}}}`,
		Errors: []string{tooMany("spec.processor.asyncConfig.workerPools", 65, 64), RulesNotChecked}},
}, networkpolicytestcases.Rejected(BaseSync)...)
