package operands

import (
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// What upstream's dev deploy (scripts/dev-deploy.sh, scripts/dev-deploy-dispatcher.sh) runs
// beside its gateway and the upstream suite reads: its own Redis without a password, Jaeger and
// a Prometheus scraping the simulator. Each is a Deployment and Service of upstream's name and
// image, which the image table (hack/operands/images.sh) runs as the host's redis-server or the
// Prometheus and Jaeger make fetch-operands builds.

// upstreamRedis is upstream's exchange (its Helm release redis, auth.enabled=false): the
// dispatcher's redis gate (llm-d-async's gate_params address) dials Redis without a password
// and fails closed when refused, and TestDispatcher/DispatchGate sets the gate's key in the same
// Redis as the queues (TEST_REDIS_URL), so the gateway's Redis is this one, as upstream's is.
const upstreamRedis = "redis-master"

// upstreamRedisURL is the Redis URL of upstream's dev deploy (its Secret's redis-url), from a pod.
func upstreamRedisURL(ns string) string {
	return fmt.Sprintf("redis://%s.%s.svc.cluster.local:6379/0", upstreamRedis, ns)
}

// upstreamJaegerOTLP is the OTLP endpoint upstream's dev deploy gives every component
// (global.otel.endpoint, ap.otel.endpoint).
func upstreamJaegerOTLP(ns string) string {
	return fmt.Sprintf("http://jaeger.%s.svc.cluster.local:4317", ns)
}

// upstreamPrometheusURL is the Prometheus of the dispatcher's prometheus-query gate (ap.prometheusURL).
func upstreamPrometheusURL(ns string) string {
	return fmt.Sprintf("http://prometheus.%s.svc.cluster.local:9090", ns)
}

// upstreamBackendDeployments are the Deployments of upstreamBackends, waited for before the suite.
var upstreamBackendDeployments = []string{upstreamRedis, "jaeger", "prometheus"}

// upstreamBackends: Redis, Jaeger and Prometheus as upstream's dev deploy runs them.
func upstreamBackends(ns string) []*unstructured.Unstructured {
	restricted := map[string]any{
		"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
		"capabilities": map[string]any{"drop": []any{"ALL"}},
	}
	deployment := func(name string, container map[string]any, volumes ...any) *unstructured.Unstructured {
		container["name"] = name
		container["securityContext"] = restricted
		spec := map[string]any{
			"securityContext": map[string]any{"runAsNonRoot": true, "seccompProfile": map[string]any{"type": "RuntimeDefault"}},
			"containers":      []any{container},
		}
		if len(volumes) > 0 {
			spec["volumes"] = volumes
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"app": name}},
			"spec": map[string]any{
				"replicas": int64(1),
				"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}}, "spec": spec},
			},
		}}
	}
	service := func(name string, ports ...int64) *unstructured.Unstructured {
		var ps []any
		for _, p := range ports {
			ps = append(ps, map[string]any{"name": fmt.Sprintf("p%d", p), "port": p, "targetPort": p})
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"selector": map[string]any{"app": name}, "ports": ps},
		}}
	}
	tcpReady := func(port int64) map[string]any {
		return map[string]any{"tcpSocket": map[string]any{"port": port}, "periodSeconds": int64(2)}
	}
	httpReady := func(path string, port int64) map[string]any {
		return map[string]any{"httpGet": map[string]any{"path": path, "port": port}, "periodSeconds": int64(2)}
	}
	// Upstream's Prometheus config as dev-deploy-dispatcher.sh extends it: the simulator the
	// gates read (vllm-sim, its fake metrics), every 5 s.
	promConfig := fmt.Sprintf(`global:
  scrape_interval: 15s
  evaluation_interval: 15s
scrape_configs:
- job_name: 'vllm-sim'
  metrics_path: /metrics
  scrape_interval: 5s
  static_configs:
  - targets: ['vllm-sim.%s.svc.cluster.local:8000']
    labels:
      component: vllm-sim
`, ns)
	return []*unstructured.Unstructured{
		// bitnami's Redis image (upstream's chart), the host's redis-server: no password, nothing
		// persisted, and protected mode off, as the chart's auth.enabled=false runs it.
		deployment(upstreamRedis, map[string]any{
			"image":          "docker.io/bitnami/redis:8.2",
			"command":        []any{"redis-server", "--port", "6379", "--save", "", "--appendonly", "no", "--protected-mode", "no"},
			"readinessProbe": tcpReady(6379),
		}),
		service(upstreamRedis, 6379),
		// Jaeger all-in-one: OTLP gRPC 4317, query 16686 (TEST_JAEGER_URL), traces in memory.
		deployment("jaeger", map[string]any{
			"image": "jaegertracing/all-in-one:1.75.0",
			// Its admin port: 200 once collector and query run.
			"readinessProbe": httpReady("/", 14269),
		}),
		service("jaeger", 4317, 16686),
		{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "prometheus-config"},
			"data": map[string]any{"prometheus.yml": promConfig},
		}},
		deployment("prometheus", map[string]any{
			"image": "prom/prometheus:v3.7.3",
			"args":  []any{"--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"},
			"volumeMounts": []any{
				map[string]any{"name": "config", "mountPath": "/etc/prometheus"},
				map[string]any{"name": "data", "mountPath": "/prometheus"},
			},
			"readinessProbe": httpReady("/-/ready", 9090),
		},
			map[string]any{"name": "config", "configMap": map[string]any{"name": "prometheus-config"}},
			map[string]any{"name": "data", "emptyDir": map[string]any{}}),
		service("prometheus", 9090),
	}
}

// upstreamAsyncProcessor is the processor upstream's dispatcher suite runs against: async
// dispatch (test/e2e/dispatcher/processor-async-values.yaml: sim-model through pool sim-pool,
// sim-model-inject through sim-pool-inject, which no queue consumes, so that
// TestDispatcher/HTTPErrorStatusPreserved takes its request itself) and the async processor of
// upstream's three Helm releases (dispatcher, dispatcher-scrape, dispatcher-prom; their
// helm-values*.yaml) in one: concurrency 1, polled every 500 ms, Prometheus results never cached,
// and their four queues, each to the simulator with its gate.
func upstreamAsyncProcessor(ns string) map[string]any {
	sim := fmt.Sprintf("http://vllm-sim.%s.svc.cluster.local:8000", ns)
	queue := func(pool, gate string, params map[string]any) any {
		return map[string]any{
			"name": "llm-d-async:requests:" + pool, "igwBaseURL": sim, "requestPathURL": "/v1/completions",
			"gateType": gate, "gateParams": params,
		}
	}
	redisGate := map[string]any{"address": fmt.Sprintf("%s.%s.svc.cluster.local:6379", upstreamRedis, ns)}
	return map[string]any{
		"dispatchMode": "async",
		"modelGateways": map[string]any{
			"sim-model":        map[string]any{"inferencePoolName": "sim-pool"},
			"sim-model-inject": map[string]any{"inferencePoolName": "sim-pool-inject"},
		},
		"asyncConfig": map[string]any{
			"replicas":           int64(1),
			"concurrency":        int64(1),
			"resultPollTimeout":  "30s",
			"prometheusURL":      upstreamPrometheusURL(ns),
			"prometheusCacheTTL": "0s",
			"redis": map[string]any{
				"pollIntervalMs": int64(500),
				"batchSize":      int64(10),
				"queuesConfig": []any{
					// BatchThroughDispatcher, MultiRequestBatch, BatchCancel: the gate is open
					// while dispatch-gate-budget is unset.
					queue("sim-pool", "redis", redisGate),
					// DispatchGate closes and opens it through dispatch-gate-budget.
					queue("sim-pool-gate", "redis", redisGate),
					// EndpointScrapeGate: the simulator's own /metrics.
					queue("sim-pool-scrape", "endpoint-scrape", map[string]any{
						"url": sim + "/metrics", "metric": "vllm:num_requests_waiting",
						"max_count_per_pod": "5", "fallback": "1.0",
					}),
					// PrometheusGate: the same metric through Prometheus.
					queue("sim-pool-prom", "prometheus-query", map[string]any{
						"query": "1 - clamp_max(vllm:num_requests_waiting / 5, 1)", "fallback": "1.0",
					}),
				},
			},
		},
	}
}

// switchToAsync sets the CR's processor to upstreamAsyncProcessor and waits until the processor
// runs with it (its Deployment rolled to a new generation) and the async processor is ready.
func switchToAsync(ctx context.Context, cr *unstructured.Unstructured, ns string) {
	processor := batchCR + "-processor"
	before, err := fw.kube.AppsV1().Deployments(ns).Get(ctx, processor, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	// Only what the Helm upgrade changes: the processor's config (heartbeat, pprof, verbosity)
	// stays, as --reset-values with the reused values keeps it there.
	for k, v := range upstreamAsyncProcessor(ns) {
		Expect(unstructured.SetNestedField(cr.Object, v, "spec", "processor", k)).To(Succeed())
	}
	// Upstream's dispatcher release traces no Redis command (ap.otel.redisTracing false in
	// test/e2e/dispatcher/helm-values.yaml), while its gateway release does (global.otel in
	// dev-deploy.sh). One CR has one spec.otel for both, as the anchor operator's has, so the
	// dispatcher phase turns it off: on, every Redis poll of the async processor (four queues
	// every 500 ms) is a trace of its own, and the newest 20 traces of service async-processor,
	// which TestDispatcherOTelTraces/CrossServiceTracePropagation reads from Jaeger, hold
	// nothing else.
	Expect(unstructured.SetNestedField(cr.Object, false, "spec", "otel", "redisTracing")).To(Succeed())
	apply(ctx, ns, cr)
	waitDeploymentReady(ctx, ns, batchCR+"-async-processor")
	By("waiting for the processor to roll out in async mode")
	Eventually(func(g Gomega) {
		d, err := fw.kube.AppsV1().Deployments(ns).Get(ctx, processor, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.Generation).To(BeNumerically(">", before.Generation))
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.UpdatedReplicas).To(Equal(d.Status.Replicas))
		g.Expect(d.Status.ReadyReplicas).To(Equal(d.Status.Replicas))
		g.Expect(d.Status.Replicas).To(BeNumerically(">=", 1))
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}
