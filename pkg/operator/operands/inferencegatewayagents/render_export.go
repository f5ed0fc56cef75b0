package inferencegatewayagents

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
)

// The objects a sync applies for a CR, as it applies them (stamped with the operator's labels
// and a controller owner reference to the CR, the Deployments under the restricted Pod Security
// profile), without what only a live sync knows (the hashes of the user's Secrets, discovered
// Agents and MCPs). They serve checks from outside the package: test/reliability/dryrun sends
// them to a real API server.

var (
	agentGVK        = v1alpha1.GroupVersion.WithKind("Agent")
	orchestratorGVK = v1alpha1.GroupVersion.WithKind("Orchestrator")
	gpuGVK          = v1alpha1.GroupVersion.WithKind("GPU")
)

// RenderAgent returns an Agent's Service and Deployment.
func RenderAgent(agent *v1alpha1.Agent) ([]runtime.Object, error) {
	objs, err := renderAgent(agent)
	if err != nil {
		return nil, err
	}
	return stamp(agentGVK, agent, objs.service, objs.deployment)
}

// RenderOrchestrator returns the objects an Orchestrator asks for, with nothing discovered.
func RenderOrchestrator(o *v1alpha1.Orchestrator) ([]runtime.Object, error) {
	objs, err := renderOrchestrator(orchestratorInput{cr: o})
	if err != nil {
		return nil, err
	}
	var wanted []runtime.Object
	for _, asset := range bindata.OrchestratorAssets {
		if objs.want[asset] {
			wanted = append(wanted, objs.object(asset))
		}
	}
	return stamp(orchestratorGVK, o, wanted...)
}

// RenderGPU returns a new GPU's connection Secret (its token, no url yet).
func RenderGPU(g *v1alpha1.GPU) ([]runtime.Object, error) {
	step := &gpuStep{g: g}
	token, err := step.token()
	if err != nil {
		return nil, err
	}
	secret, err := renderConnectionSecret(g, "", token)
	if err != nil {
		return nil, err
	}
	return stamp(gpuGVK, g, secret)
}

// stamp is what applying does to an object before it is sent: the operator's labels and the
// controller owner reference, and the restricted Pod Security profile for a Deployment.
func stamp(gvk schema.GroupVersionKind, owner metav1.Object, objs ...runtime.Object) ([]runtime.Object, error) {
	r := inferencegateway.OwnerStamp(gvk, owner)
	for _, obj := range objs {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, err
		}
		r.Stamp(m)
		if d, ok := obj.(*appsv1.Deployment); ok {
			if err := engine.RunHooks(d, inferencegateway.PodSecurity...); err != nil {
				return nil, err
			}
		}
	}
	return objs, nil
}
