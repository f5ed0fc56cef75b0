package operands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Issue 16, defect 6: the batch dashboards queried metrics the programs do not export (`code`
// where the apiserver's label is `status`, processor_adaptive_concurrency_limit where the
// processor exports batch_processor_aimd_concurrency_limit). The unit test
// (pkg/operator/operands/batchgateway/dashboards_test.go) checks every query against a list
// read from the sources; here every query of the dashboards the operator rendered is checked
// against what the running programs really serve on /metrics.

// targetLabels are added by Prometheus to every scraped series (the PodMonitors' and
// ServiceMonitor's relabelling): a query may use them whatever the program exports. A program's
// own label of one of these names is renamed exported_<name>.
var targetLabels = map[string]bool{"namespace": true, "pod": true, "container": true, "endpoint": true, "job": true, "instance": true, "service": true}

// metricsOnlyAfter: series the programs create only when an event happens that a clean batch
// does not cause (labelled vectors without a child until then). A queried metric listed here may
// be absent; if present its labels are still checked.
var metricsOnlyAfter = map[string]string{
	"request_errors_by_model_total":                      "a request to a model fails",
	"batch_reconciler_orphans_recovered_total":           "the gc recovers an orphaned batch",
	"llm_d_async_async_request_retries_total":            "the async processor retries a request",
	"llm_d_async_async_shedded_requests_total":           "the async processor sheds a request",
	"llm_d_async_async_exceeded_deadline_requests_total": "a request passes its deadline",
	// Queried by llm-d-async's own dashboard (async-processor.json, kept as shipped: issue 31).
	"llm_d_async_async_failed_requests_total": "the async processor gives up on a request",
	// Queried by upstream's own dashboards (generated from the pinned chart); the processor's
	// labelled counters (internal/processor/metrics/metrics.go at the pinned commit).
	"batch_processor_aimd_decreases_total": "a model server answers 429 or 5xx, or has no capacity (AIMD decrease)",
	"batch_processor_aimd_increases_total": "a sustained window of successes raises an endpoint's AIMD limit",
	"batch_cancellation_total":             "a batch is cancelled",
	"batch_startup_recovery_total":         "a restarted processor finds jobs in its work directory",
}

// metricsOfOtherFlows: series a program registers only in a mode the suite does not run. A
// queried metric listed here may be absent; if present its labels are still checked.
var metricsOfOtherFlows = map[string]string{
	// llm-d-async's own dashboard (async-processor.json, kept as shipped) charts it, but the
	// async processor registers it only for a flow with message latency (its Pub/Sub flow,
	// pkg/pubsub at v0.7.3); the Redis flows (redis, redis-sortedset) have none, so the panel
	// stays empty on them, upstream's deployment too.
	"llm_d_async_async_message_latency_time_millis_bucket": "the async processor runs a flow with message latency (Pub/Sub)",
}

// querySelector is one metric selector of a dashboard query: the metric and the labels the
// query reads (matchers and grouping).
type querySelector struct {
	metric string
	labels []string
	expr   string
}

var (
	exprRE     = regexp.MustCompile(`"expr":\s*("(?:[^"\\]|\\.)*")`)
	selectorRE = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}`)
	matcherRE  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)`)
	groupingRE = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
)

// dashboardSelectors reads every query of the dashboards in a ConfigMap's JSON documents.
func dashboardSelectors(cm *corev1.ConfigMap) []querySelector {
	var out []querySelector
	for _, doc := range cm.Data {
		for _, m := range exprRE.FindAllStringSubmatch(doc, -1) {
			var expr string
			Expect(json.Unmarshal([]byte(m[1]), &expr)).To(Succeed(), m[1])
			var grouping []string
			for _, g := range groupingRE.FindAllStringSubmatch(expr, -1) {
				for _, l := range strings.Split(g[1], ",") {
					grouping = append(grouping, strings.TrimSpace(l))
				}
			}
			for _, s := range selectorRE.FindAllStringSubmatch(expr, -1) {
				sel := querySelector{metric: s[1], expr: expr}
				for _, l := range matcherRE.FindAllStringSubmatch(s[2], -1) {
					sel.labels = append(sel.labels, l[1])
				}
				sel.labels = append(sel.labels, grouping...)
				out = append(out, sel)
			}
		}
	}
	return out
}

// scrape reads a Prometheus text exposition: each series name with the union of its labels.
func scrape(ctx context.Context, url string) map[string]map[string]bool {
	var body []byte
	Eventually(func(g Gomega) {
		code, b, err := do(ctx, http.MethodGet, url, nil, nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(http.StatusOK), string(b))
		body = b
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	series := map[string]map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	labelRE := regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="`)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
		}
		if series[name] == nil {
			series[name] = map[string]bool{}
		}
		if i := strings.IndexByte(line, '{'); i >= 0 && strings.IndexByte(line, ' ') > i {
			for _, l := range labelRE.FindAllStringSubmatch(line[i:], -1) {
				series[name][l[1]] = true
			}
		}
	}
	return series
}

// metricsService makes a Service in front of a component's metrics port, as a PodMonitor would
// reach the pods, and returns its URL.
func metricsService(ctx context.Context, ns, component string, port int) string {
	name := "scrape-" + component
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app.kubernetes.io/component": component},
			Ports:    []corev1.ServicePort{{Name: "metrics", Port: int32(port), TargetPort: intstr.FromInt(port)}},
		},
	}
	_, err := fw.kube.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return serviceURL(ctx, ns, name, port, "http") + "/metrics"
}

// expectDashboardsExported checks every query of the dashboards ConfigMaps against the series the
// components serve: the metric exists (or is one of metricsOnlyAfter) with every label the query
// reads.
func expectDashboardsExported(ctx context.Context, ns string, configMaps []string, scrapes map[string]string) {
	exported := map[string]map[string]bool{}
	for component, url := range scrapes {
		By("scraping the " + component + " at " + url)
		for name, labels := range scrape(ctx, url) {
			if exported[name] == nil {
				exported[name] = map[string]bool{}
			}
			for l := range labels {
				exported[name][l] = true
			}
		}
	}
	var problems []string
	checked := 0
	for _, name := range configMaps {
		cm, err := fw.kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "dashboards ConfigMap %s/%s", ns, name)
		sels := dashboardSelectors(cm)
		Expect(sels).NotTo(BeEmpty(), "no queries in %s", name)
		for _, s := range sels {
			checked++
			labels, ok := exported[s.metric]
			if !ok {
				_, later := metricsOnlyAfter[s.metric]
				if _, other := metricsOfOtherFlows[s.metric]; !later && !other {
					problems = append(problems, fmt.Sprintf("%s: %s is not served by any component (query %s)", name, s.metric, s.expr))
				}
				continue
			}
			for _, l := range s.labels {
				own := strings.TrimPrefix(l, "exported_")
				if (targetLabels[l] && l == own) || labels[own] {
					continue
				}
				problems = append(problems, fmt.Sprintf("%s: %s has no label %s (it has %v; query %s)", name, s.metric, l, keys(labels), s.expr))
			}
		}
	}
	GinkgoWriter.Printf("dashboard queries checked against the real /metrics: %d selectors in %v\n", checked, configMaps)
	Expect(problems).To(BeEmpty())
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
