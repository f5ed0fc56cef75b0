// Package batchgateway renders the LLM batch gateway operand (apiserver, processor, garbage
// collector and, in async dispatch mode, the llm-d-async processor) for an LLMBatchGateway
// custom resource: the exact objects the operator wants, built from the embedded manifests in
// bindata/assets/batchgateway and the CR's fields.
//
// Names, Deployment selectors, pod templates and config keys match what the upstream operator
// (opendatahub-io/llm-d-batch-gateway-operator, which renders Helm charts) creates, so that the
// operator can adopt objects upstream created; golden_test.go lists every intended difference.
package batchgateway

import "strings"

// Components of the operand. Each is the value of the app.kubernetes.io/component label on its
// objects; upstream's status code and e2e tests select Deployments by it.
const (
	componentAPIServer      = "apiserver"
	componentProcessor      = "processor"
	componentGC             = "gc"
	componentAsyncProcessor = "async-processor"
	// componentMonitoring labels the objects that belong to no single component (dashboards,
	// alert rules); upstream gives them no component label at all.
	componentMonitoring = "monitoring"
)

// Label keys and values the rendered objects carry.
const (
	nameLabel      = "app.kubernetes.io/name"
	instanceLabel  = "app.kubernetes.io/instance"
	componentLabel = "app.kubernetes.io/component"
	// PartOfLabel groups every object of every instance of the operand.
	PartOfLabel = "app.kubernetes.io/part-of"
	// PartOfValue is PartOfLabel's value on every object and pod template the operand renders.
	PartOfValue = "llm-batch-gateway"

	// scrapeLabel makes OpenDataHub's monitoring stack pick up a ServiceMonitor or PodMonitor.
	scrapeLabel = "monitoring.opendatahub.io/scrape"
	// grafanaDashboardLabel makes the Grafana sidecar load a dashboards ConfigMap.
	grafanaDashboardLabel = "grafana_dashboard"
)

// Substrings whose presence in the CR name shortens the component names, as Helm's fullname
// helpers do (the CR name is the Helm release name upstream).
const (
	batchChartName = "batch-gateway"
	asyncChartName = "async-processor"
)

// maxNameLength is the length Helm's helpers truncate names to (a DNS label).
const maxNameLength = 63

// Names are the names of the objects rendered for one LLMBatchGateway. They follow upstream's
// rules exactly, including the truncation, so objects upstream created are adopted.
type Names struct {
	// APIServer names the apiserver's ServiceAccount, Deployment, Service, HTTPRoute and
	// ServiceMonitor.
	APIServer string
	// Processor names the processor's ServiceAccount, Deployment and PodMonitor.
	Processor string
	// GC names the garbage collector's ServiceAccount, Deployment and PodMonitor.
	GC string
	// AsyncProcessor names the async-processor's ServiceAccount, Deployment, PodMonitor and
	// PrometheusRule.
	AsyncProcessor string

	APIServerConfig      string
	ProcessorConfig      string
	GCConfig             string
	AsyncProcessorConfig string

	// APIServerTLS is the cert-manager Certificate and the Secret it issues.
	APIServerTLS string
	// Dashboards and Alerts are the batch components' Grafana ConfigMap and PrometheusRule.
	Dashboards string
	Alerts     string
	// AsyncDashboards and AsyncModelServerMonitor are the async-processor's Grafana ConfigMap
	// and the PodMonitor that scrapes the model servers its gates read.
	AsyncDashboards         string
	AsyncModelServerMonitor string
	// Credentials is the copy of a Secret that spec.secretRef takes from another namespace.
	Credentials string
}

// NamesFor returns the object names for the LLMBatchGateway named cr.
func NamesFor(cr string) Names {
	api := batchComponentName(cr, componentAPIServer)
	proc := batchComponentName(cr, componentProcessor)
	gc := batchComponentName(cr, componentGC)
	async := asyncProcessorName(cr)
	return Names{
		APIServer:               api,
		Processor:               proc,
		GC:                      gc,
		AsyncProcessor:          async,
		APIServerConfig:         api + "-config",
		ProcessorConfig:         proc + "-config",
		GCConfig:                gc + "-config",
		AsyncProcessorConfig:    async + "-config",
		APIServerTLS:            api + "-tls",
		Dashboards:              cr + "-" + batchChartName + "-dashboards",
		Alerts:                  cr + "-" + batchChartName + "-alerts",
		AsyncDashboards:         async + "-dashboards",
		AsyncModelServerMonitor: async + "-modelserver",
		Credentials:             cr + "-credentials",
	}
}

// batchComponentName is the batch chart's fullname for a component: "<cr>-<component>" when the
// CR name already contains "batch-gateway", "<cr>-batch-gateway-<component>" otherwise.
func batchComponentName(cr, component string) string {
	if strings.Contains(cr, batchChartName) {
		return helmName(cr + "-" + component)
	}
	return helmName(cr + "-" + batchChartName + "-" + component)
}

// asyncProcessorName is the async-processor chart's fullname: the CR name itself when it
// already contains "async-processor", "<cr>-async-processor" otherwise.
func asyncProcessorName(cr string) string {
	if strings.Contains(cr, asyncChartName) {
		return helmName(cr)
	}
	return helmName(cr + "-" + asyncChartName)
}

// helmName is Helm's `trunc 63 | trimSuffix "-"`: one trailing dash is removed, not all.
func helmName(name string) string {
	if len(name) > maxNameLength {
		name = name[:maxNameLength]
	}
	return strings.TrimSuffix(name, "-")
}

// selectorLabels are the labels a component's Deployment selects its pods by. They are
// upstream's and must never change: a Deployment's selector is immutable, and Deployments
// upstream created are adopted. The batch components select by name, instance and component;
// the async-processor chart selects by name and instance only.
func selectorLabels(cr, component string) map[string]string {
	if component == componentAsyncProcessor {
		return map[string]string{nameLabel: asyncChartName, instanceLabel: cr}
	}
	return map[string]string{
		nameLabel:      batchChartName + "-" + component,
		instanceLabel:  cr,
		componentLabel: component,
	}
}

// objectLabels is the one label set every object of a component and its pod template carry:
// the selector labels plus component and part-of. The engine adds managed-by.
func objectLabels(cr, component string) map[string]string {
	labels := map[string]string{nameLabel: batchChartName, instanceLabel: cr}
	if component != componentMonitoring {
		labels = selectorLabels(cr, component)
	}
	labels[componentLabel] = component
	labels[PartOfLabel] = PartOfValue
	return labels
}
