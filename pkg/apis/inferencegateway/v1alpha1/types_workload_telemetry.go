package v1alpha1

// The telemetry of an Agent and of an Orchestrator. Upstream used the Gateway's TelemetrySpec for
// all three kinds; the JSON fields, types, defaults and enums are the same here, while each kind
// has its own Go types, so that each rejects what it cannot do with a message of its own (and
// kubectl explain says what each field does for that kind).

// AgentTelemetrySpec is an agent's OpenTelemetry setup (the inference-gateway ADK's
// A2A_OTEL_* variables). The agent has one OTLP endpoint and protocol for every signal.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.traces) && has(self.traces.exporter) && has(self.traces.exporter.otlp) && has(self.metrics) && has(self.metrics.exporter) && has(self.metrics.exporter.otlp)) || ((has(self.traces.exporter.otlp.endpoint) == has(self.metrics.exporter.otlp.endpoint)) && (!has(self.traces.exporter.otlp.endpoint) || self.traces.exporter.otlp.endpoint == self.metrics.exporter.otlp.endpoint) && (has(self.traces.exporter.otlp.protocol) == has(self.metrics.exporter.otlp.protocol)) && (!has(self.traces.exporter.otlp.protocol) || self.traces.exporter.otlp.protocol == self.metrics.exporter.otlp.protocol))",fieldPath=".metrics.exporter.otlp",message="spec.telemetry.metrics.exporter.otlp must have the endpoint and protocol of spec.telemetry.traces.exporter.otlp: the agent has one OTLP endpoint (A2A_OTEL_EXPORTER_OTLP_ENDPOINT and _PROTOCOL) for every signal"
type AgentTelemetrySpec struct {
	// enabled turns telemetry on (A2A_TELEMETRY_ENABLED). While it is false the exporters below
	// are not configured. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// traces exports spans (A2A_OTEL_TRACES_EXPORTER otlp; none without an exporter).
	// +optional
	Traces *WorkloadTracesSpec `json:"traces,omitempty"`

	// metrics exports metrics (A2A_OTEL_METRICS_EXPORTER otlp or prometheus; none without an
	// exporter). Default {enabled: false, port: 9464}, upstream's, which an agent leaves alone.
	// +optional
	// +kubebuilder:default={enabled: false, port: 9464}
	Metrics *WorkloadMetricsSpec `json:"metrics,omitempty"`

	// receiver is the Orchestrator's OTLP receiver; an agent has none, so only enabled: false is
	// accepted.
	// +optional
	Receiver *AgentReceiverSpec `json:"receiver,omitempty"`
}

// AgentReceiverSpec is upstream's OTLP receiver in an Agent's telemetry, which the agent does not
// have.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enabled) || !self.enabled",fieldPath=".enabled",reason="FieldValueForbidden",message="spec.telemetry.receiver is not supported for an Agent: the OTLP receiver is the Orchestrator's; remove it or set enabled: false"
type AgentReceiverSpec struct {
	// enabled must be false. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// port has no effect. Default 4318.
	// +optional
	// +kubebuilder:default=4318
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// OrchestratorTelemetrySpec is an orchestrator's observability (the infer CLI's
// INFER_TELEMETRY_* variables): one OTLP/HTTP endpoint for traces and metrics, and an optional
// OTLP receiver that other processes push spans to.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.traces) && has(self.traces.exporter) && has(self.traces.exporter.otlp) && has(self.metrics) && has(self.metrics.exporter) && has(self.metrics.exporter.otlp)) || ((has(self.traces.exporter.otlp.endpoint) == has(self.metrics.exporter.otlp.endpoint)) && (!has(self.traces.exporter.otlp.endpoint) || self.traces.exporter.otlp.endpoint == self.metrics.exporter.otlp.endpoint))",fieldPath=".metrics.exporter.otlp.endpoint",message="spec.telemetry.metrics.exporter.otlp.endpoint must be the endpoint of spec.telemetry.traces.exporter.otlp: the orchestrator has one OTLP endpoint (INFER_TELEMETRY_OTLP_ENDPOINT) for traces and metrics"
// +kubebuilder:validation:XValidation:rule="!has(self.metrics) || !has(self.metrics.exporter) || !has(self.metrics.exporter.prometheus)",fieldPath=".metrics.exporter.prometheus",reason="FieldValueForbidden",message="spec.telemetry.metrics.exporter.prometheus is not supported for an Orchestrator: it serves no Prometheus endpoint; use metrics.exporter.otlp"
// +kubebuilder:validation:XValidation:rule="!has(self.traces) || !has(self.traces.exporter) || !has(self.traces.exporter.otlp) || !has(self.traces.exporter.otlp.protocol) || self.traces.exporter.otlp.protocol != 'grpc'",fieldPath=".traces.exporter.otlp.protocol",message="spec.telemetry.traces.exporter.otlp.protocol grpc is not supported for an Orchestrator: it exports over OTLP/HTTP only; use http/protobuf or leave it unset"
// +kubebuilder:validation:XValidation:rule="!has(self.metrics) || !has(self.metrics.exporter) || !has(self.metrics.exporter.otlp) || !has(self.metrics.exporter.otlp.protocol) || self.metrics.exporter.otlp.protocol != 'grpc'",fieldPath=".metrics.exporter.otlp.protocol",message="spec.telemetry.metrics.exporter.otlp.protocol grpc is not supported for an Orchestrator: it exports over OTLP/HTTP only; use http/protobuf or leave it unset"
type OrchestratorTelemetrySpec struct {
	// enabled turns telemetry on (INFER_TELEMETRY_ENABLED). While it is false the exporters and
	// the receiver below are off. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// traces sends spans to exporter.otlp.endpoint (INFER_TELEMETRY_OTLP_ENDPOINT).
	// +optional
	Traces *WorkloadTracesSpec `json:"traces,omitempty"`

	// metrics sends metrics to exporter.otlp.endpoint, the same endpoint as traces. Default
	// {enabled: false, port: 9464}, upstream's, which an orchestrator leaves alone.
	// +optional
	// +kubebuilder:default={enabled: false, port: 9464}
	Metrics *WorkloadMetricsSpec `json:"metrics,omitempty"`

	// receiver is an OTLP/HTTP receiver in the orchestrator's pod
	// (INFER_TELEMETRY_RECEIVER_ADDRESS 0.0.0.0:<port>), with a container port and a Service
	// <name>-receiver, so that the gateway and agents can push their spans to it.
	// +optional
	Receiver *OrchestratorReceiverSpec `json:"receiver,omitempty"`
}

// OrchestratorReceiverSpec is the orchestrator's OTLP receiver.
type OrchestratorReceiverSpec struct {
	// enabled starts the receiver and creates its Service. Only one process of the pod can bind
	// the port: with channels enabled, the agents channels-manager starts contend for it, which
	// the ReceiverPortContention condition reports. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// port the receiver listens on, 1024 to 65535. Default 4318.
	// +optional
	// +kubebuilder:default=4318
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// WorkloadTracesSpec is the tracing signal of an Agent or an Orchestrator.
type WorkloadTracesSpec struct {
	// exporter is where spans go. Unset, no traces.
	// +optional
	Exporter *WorkloadTracesExporterSpec `json:"exporter,omitempty"`
}

// WorkloadTracesExporterSpec selects the traces exporter; OTLP is the only one.
type WorkloadTracesExporterSpec struct {
	// otlp pushes spans to an OpenTelemetry collector.
	// +optional
	OTLP *WorkloadOTLPExporterSpec `json:"otlp,omitempty"`
}

// WorkloadMetricsSpec is the metrics signal of an Agent or an Orchestrator. Its enabled and port
// are the Inference Gateway's Prometheus endpoint, which these kinds do not have: they keep
// their defaults.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enabled) || !self.enabled",fieldPath=".enabled",reason="FieldValueForbidden",message="spec.telemetry.metrics.enabled is not supported for an Agent or an Orchestrator: their metrics go where metrics.exporter says (and an Agent's Prometheus port is metrics.exporter.prometheus.port); remove enabled"
// +kubebuilder:validation:XValidation:rule="!has(self.port) || self.port == 9464",fieldPath=".port",message="spec.telemetry.metrics.port is not supported for an Agent or an Orchestrator: it is the Inference Gateway's metrics port; set an Agent's Prometheus port with metrics.exporter.prometheus.port"
type WorkloadMetricsSpec struct {
	// enabled must be false. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// port must be 9464. Default 9464.
	// +optional
	// +kubebuilder:default=9464
	// +kubebuilder:validation:Minimum=1024
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`

	// exporter is where metrics go: otlp, or (an Agent only) prometheus. Unset, no metrics.
	// +optional
	Exporter *WorkloadMetricsExporterSpec `json:"exporter,omitempty"`
}

// WorkloadMetricsExporterSpec selects the metrics exporter: exactly one of otlp and prometheus.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.otlp) && has(self.prometheus))",message="spec.telemetry.metrics.exporter must set one of otlp and prometheus, not both: metrics have one exporter"
type WorkloadMetricsExporterSpec struct {
	// otlp pushes metrics to an OpenTelemetry collector.
	// +optional
	OTLP *WorkloadOTLPExporterSpec `json:"otlp,omitempty"`

	// prometheus serves a Prometheus scrape endpoint in an Agent's pod
	// (A2A_OTEL_EXPORTER_PROMETHEUS_HOST, _PORT). Not for an Orchestrator.
	// +optional
	Prometheus *PrometheusExporterSpec `json:"prometheus,omitempty"`
}

// WorkloadOTLPExporterSpec is an OTLP push exporter of an Agent or an Orchestrator.
type WorkloadOTLPExporterSpec struct {
	// endpoint is the collector's URL, for example http://otel-collector:4318 (an Agent's
	// A2A_OTEL_EXPORTER_OTLP_ENDPOINT, an Orchestrator's INFER_TELEMETRY_OTLP_ENDPOINT). Unset,
	// the program's default.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://.+$`
	Endpoint string `json:"endpoint,omitempty"`

	// protocol is the OTLP wire protocol, grpc or http/protobuf (an Agent's
	// A2A_OTEL_EXPORTER_OTLP_PROTOCOL; an Orchestrator speaks http/protobuf only).
	// +optional
	// +kubebuilder:validation:Enum=grpc;http/protobuf
	Protocol string `json:"protocol,omitempty"`
}
