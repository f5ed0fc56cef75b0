package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the upstream inference-gateway operator's group, kept so that existing Gateway,
// MCP, Agent, Orchestrator and GPU objects and YAML keep working unchanged.
const GroupName = "core.inference-gateway.com"

var (
	// GroupVersion is the group and version of every type in this package.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}
	// SchemeGroupVersion is the name code-generator's output expects for GroupVersion.
	SchemeGroupVersion = GroupVersion

	schemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme registers this package's types with a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

// Resource turns an unqualified resource name into a group-qualified GroupResource.
func Resource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion,
		&Gateway{},
		&GatewayList{},
		&MCP{},
		&MCPList{},
		&Agent{},
		&AgentList{},
		&Orchestrator{},
		&OrchestratorList{},
		&GPU{},
		&GPUList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
