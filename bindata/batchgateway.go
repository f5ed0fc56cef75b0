package bindata

// LLM batch gateway operand manifests (assets/batchgateway): one object per file, authored from
// the objects the upstream operator renders with its Helm charts (batch-gateway 0.1.0 and
// async-processor 0.7.0), without Helm's labels. Each manifest is what a default
// LLMBatchGateway yields; pkg/operator/operands/batchgateway applies the CR's fields.
//
// Placeholders stand inside YAML string values only and are substituted after the manifest is
// parsed, value by value, so a substituted value can never change the structure of an object:
//
//	${NAMESPACE}             the CR's namespace
//	${INSTANCE}              the CR's name (upstream's Helm release name)
//	${APISERVER_NAME}        the apiserver's object name (batchgateway.NamesFor)
//	${PROCESSOR_NAME}        the processor's object name
//	${GC_NAME}               the garbage collector's object name
//	${ASYNC_PROCESSOR_NAME}  the async-processor's object name
//	${APISERVER_IMAGE}       the component images
//	${PROCESSOR_IMAGE}
//	${GC_IMAGE}
//	${ASYNC_PROCESSOR_IMAGE}
//	${CREDENTIALS_SECRET}    the credentials Secret the pods mount (spec.secretRef, or its copy)
//
// Names derived from a component's (its ConfigMap "-config", the Certificate "-tls") are
// written out in the manifests from these placeholders.
const (
	BatchGatewayInstancePlaceholder           = "${INSTANCE}"
	BatchGatewayAPIServerNamePlaceholder      = "${APISERVER_NAME}"
	BatchGatewayProcessorNamePlaceholder      = "${PROCESSOR_NAME}"
	BatchGatewayGCNamePlaceholder             = "${GC_NAME}"
	BatchGatewayAsyncProcessorNamePlaceholder = "${ASYNC_PROCESSOR_NAME}"

	BatchGatewayAPIServerImagePlaceholder      = "${APISERVER_IMAGE}"
	BatchGatewayProcessorImagePlaceholder      = "${PROCESSOR_IMAGE}"
	BatchGatewayGCImagePlaceholder             = "${GC_IMAGE}"
	BatchGatewayAsyncProcessorImagePlaceholder = "${ASYNC_PROCESSOR_IMAGE}"

	BatchGatewayCredentialsSecretPlaceholder = "${CREDENTIALS_SECRET}"
)

// LLM batch gateway operand manifests.
const (
	BatchGatewayAPIServerServiceAccount      = "assets/batchgateway/apiserver-serviceaccount.yaml"
	BatchGatewayProcessorServiceAccount      = "assets/batchgateway/processor-serviceaccount.yaml"
	BatchGatewayGCServiceAccount             = "assets/batchgateway/gc-serviceaccount.yaml"
	BatchGatewayAsyncProcessorServiceAccount = "assets/batchgateway/async-processor-serviceaccount.yaml"

	BatchGatewayAPIServerConfigMap      = "assets/batchgateway/apiserver-configmap.yaml"
	BatchGatewayProcessorConfigMap      = "assets/batchgateway/processor-configmap.yaml"
	BatchGatewayGCConfigMap             = "assets/batchgateway/gc-configmap.yaml"
	BatchGatewayAsyncProcessorConfigMap = "assets/batchgateway/async-processor-configmap.yaml"
	BatchGatewayDashboards              = "assets/batchgateway/dashboards-configmap.yaml"
	BatchGatewayAsyncProcessorDashboard = "assets/batchgateway/async-processor-dashboards-configmap.yaml"
	BatchGatewayAPIServerBackendCA      = "assets/batchgateway/apiserver-backend-ca-configmap.yaml"

	BatchGatewayAPIServerService = "assets/batchgateway/apiserver-service.yaml"

	BatchGatewayAPIServerDeployment      = "assets/batchgateway/apiserver-deployment.yaml"
	BatchGatewayProcessorDeployment      = "assets/batchgateway/processor-deployment.yaml"
	BatchGatewayGCDeployment             = "assets/batchgateway/gc-deployment.yaml"
	BatchGatewayAsyncProcessorDeployment = "assets/batchgateway/async-processor-deployment.yaml"

	BatchGatewayAPIServerPodDisruptionBudget      = "assets/batchgateway/apiserver-poddisruptionbudget.yaml"
	BatchGatewayProcessorPodDisruptionBudget      = "assets/batchgateway/processor-poddisruptionbudget.yaml"
	BatchGatewayGCPodDisruptionBudget             = "assets/batchgateway/gc-poddisruptionbudget.yaml"
	BatchGatewayAsyncProcessorPodDisruptionBudget = "assets/batchgateway/async-processor-poddisruptionbudget.yaml"

	BatchGatewayAPIServerNetworkPolicy      = "assets/batchgateway/apiserver-networkpolicy.yaml"
	BatchGatewayProcessorNetworkPolicy      = "assets/batchgateway/processor-networkpolicy.yaml"
	BatchGatewayGCNetworkPolicy             = "assets/batchgateway/gc-networkpolicy.yaml"
	BatchGatewayAsyncProcessorNetworkPolicy = "assets/batchgateway/async-processor-networkpolicy.yaml"

	BatchGatewayAPIServerCertificate                = "assets/batchgateway/apiserver-certificate.yaml"
	BatchGatewayAPIServerHTTPRoute                  = "assets/batchgateway/apiserver-httproute.yaml"
	BatchGatewayAPIServerBackendTLSPolicy           = "assets/batchgateway/apiserver-backendtlspolicy.yaml"
	BatchGatewayAPIServerServiceMonitor             = "assets/batchgateway/apiserver-servicemonitor.yaml"
	BatchGatewayProcessorPodMonitor                 = "assets/batchgateway/processor-podmonitor.yaml"
	BatchGatewayGCPodMonitor                        = "assets/batchgateway/gc-podmonitor.yaml"
	BatchGatewayAsyncProcessorPodMonitor            = "assets/batchgateway/async-processor-podmonitor.yaml"
	BatchGatewayAsyncProcessorModelServerPodMonitor = "assets/batchgateway/async-processor-modelserver-podmonitor.yaml"
	BatchGatewayPrometheusRule                      = "assets/batchgateway/prometheusrule.yaml"
	BatchGatewayAsyncProcessorPrometheusRule        = "assets/batchgateway/async-processor-prometheusrule.yaml"
)

// BatchGatewayAssets is every manifest of the LLM batch gateway operand in apply order:
// ServiceAccounts, ConfigMaps, the Service and the Deployments (each after what it mounts or
// runs as), their PodDisruptionBudgets and NetworkPolicies, then the kinds whose CRDs are optional (cert-manager,
// Gateway API, Prometheus operator). Removal walks it backwards. Code and tests use this one
// list.
var BatchGatewayAssets = []string{
	BatchGatewayAPIServerServiceAccount,
	BatchGatewayProcessorServiceAccount,
	BatchGatewayGCServiceAccount,
	BatchGatewayAsyncProcessorServiceAccount,

	BatchGatewayAPIServerConfigMap,
	BatchGatewayProcessorConfigMap,
	BatchGatewayGCConfigMap,
	BatchGatewayAsyncProcessorConfigMap,
	BatchGatewayDashboards,
	BatchGatewayAsyncProcessorDashboard,
	BatchGatewayAPIServerBackendCA,

	BatchGatewayAPIServerService,

	BatchGatewayAPIServerDeployment,
	BatchGatewayProcessorDeployment,
	BatchGatewayGCDeployment,
	BatchGatewayAsyncProcessorDeployment,

	BatchGatewayAPIServerPodDisruptionBudget,
	BatchGatewayProcessorPodDisruptionBudget,
	BatchGatewayGCPodDisruptionBudget,
	BatchGatewayAsyncProcessorPodDisruptionBudget,

	BatchGatewayAPIServerNetworkPolicy,
	BatchGatewayProcessorNetworkPolicy,
	BatchGatewayGCNetworkPolicy,
	BatchGatewayAsyncProcessorNetworkPolicy,

	BatchGatewayAPIServerCertificate,
	BatchGatewayAPIServerHTTPRoute,
	BatchGatewayAPIServerBackendTLSPolicy,
	BatchGatewayAPIServerServiceMonitor,
	BatchGatewayProcessorPodMonitor,
	BatchGatewayGCPodMonitor,
	BatchGatewayAsyncProcessorPodMonitor,
	BatchGatewayAsyncProcessorModelServerPodMonitor,
	BatchGatewayPrometheusRule,
	BatchGatewayAsyncProcessorPrometheusRule,
}
