package batchgateway

import (
	"github.com/llm-infra/llm-infra-operator/bindata"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// stepOfKind names the step that applies each kind of the operand's assets.
var stepOfKind = map[string]string{
	"ServiceAccount": "ServiceAccounts",
	"ConfigMap":      "ConfigMaps",
	"Service":        "Service",
	"Deployment":     "Deployments",
	// One step for the budgets of all four Deployments.
	"PodDisruptionBudget": "PodDisruptionBudgets",
	// One step for the policies of all four Deployments.
	"NetworkPolicy":  "NetworkPolicies",
	"Certificate":    "cert-manager Certificate",
	"HTTPRoute":      "HTTPRoute",
	"ServiceMonitor": "monitors",
	"PodMonitor":     "monitors",
	"PrometheusRule": "alert rules",
}

// configMapsOf lists the ConfigMaps each component's pods mount.
var configMapsOf = map[string][]string{
	componentAPIServer:      {bindata.BatchGatewayAPIServerConfigMap},
	componentProcessor:      {bindata.BatchGatewayProcessorConfigMap},
	componentGC:             {bindata.BatchGatewayGCConfigMap},
	componentAsyncProcessor: {bindata.BatchGatewayAsyncProcessorConfigMap},
}

// assetDetails names the CR field that asks for each object of an optional API, and the
// Deployment each PodDisruptionBudget protects.
var assetDetails = map[string]engine.Asset{
	bindata.BatchGatewayAPIServerPodDisruptionBudget:      {DisruptionBudgetOf: bindata.BatchGatewayAPIServerDeployment},
	bindata.BatchGatewayProcessorPodDisruptionBudget:      {DisruptionBudgetOf: bindata.BatchGatewayProcessorDeployment},
	bindata.BatchGatewayGCPodDisruptionBudget:             {DisruptionBudgetOf: bindata.BatchGatewayGCDeployment},
	bindata.BatchGatewayAsyncProcessorPodDisruptionBudget: {DisruptionBudgetOf: bindata.BatchGatewayAsyncProcessorDeployment},

	bindata.BatchGatewayAPIServerCertificate:                {Feature: "spec.tls.certManager"},
	bindata.BatchGatewayAPIServerHTTPRoute:                  {Feature: "spec.httpRoute.enabled"},
	bindata.BatchGatewayAPIServerBackendTLSPolicy:           {Feature: "spec.tls.enabled with spec.httpRoute.enabled"},
	bindata.BatchGatewayAPIServerServiceMonitor:             {Feature: "spec.monitoring.enabled"},
	bindata.BatchGatewayProcessorPodMonitor:                 {Feature: "spec.monitoring.enabled"},
	bindata.BatchGatewayGCPodMonitor:                        {Feature: "spec.monitoring.enabled"},
	bindata.BatchGatewayAsyncProcessorPodMonitor:            {Feature: "spec.monitoring.enabled"},
	bindata.BatchGatewayAsyncProcessorModelServerPodMonitor: {Feature: "spec.processor.asyncConfig.modelServerMonitor.enabled"},
	bindata.BatchGatewayPrometheusRule:                      {Feature: "spec.prometheusRule.enabled"},
	bindata.BatchGatewayAsyncProcessorPrometheusRule:        {Feature: "spec.prometheusRule.enabled"},
}
