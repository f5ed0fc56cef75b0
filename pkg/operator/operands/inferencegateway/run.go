package inferencegateway

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	igwlisters "github.com/llm-infra/llm-infra-operator/pkg/generated/listers/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// gatewayState is what the steps of one Gateway's sync produce for the render and the status.
type gatewayState struct {
	// mcps lists the MCPs discovery selects from (nil without a cluster).
	mcps  igwlisters.MCPLister
	names Names
	// mcpServers are the static and discovered MCP server URLs (the static ones until the
	// discovery step ran).
	mcpServers []string
	// mcpReady are the discovered MCP servers that are ready (nil: none discovered).
	mcpReady []string
	// inputs are what the pods read at start-up, watched one by one.
	inputs podInputs
	// policy is what the administrator allows the Gateway to name (the zero Policy, every
	// name, in a render without a cluster).
	policy engine.Policy
}

// mcpState is what the steps of one MCP's sync produce.
type mcpState struct {
	// inputs are what the pods read at start-up (the TLS Secret), watched.
	inputs podInputs
}

// prepareGatewayDeployment adds the hash of everything the pods read at start-up, and keeps
// the live replicas while an HPA owns them (an apply must never reset what the HPA scaled to).
// A Secret the pods need that does not exist holds the Deployment back
// (engine.MountedSecrets).
func prepareGatewayDeployment(run *gatewayRun, d *appsv1.Deployment) error {
	configMaps, err := gatewayConfigMaps(run)
	if err != nil {
		return err
	}
	secrets, err := engine.MountedSecrets(run.References(engine.Secrets), d, run.State.inputs.Secrets)
	if err != nil {
		return err
	}
	if ready := run.State.mcpReady; ready != nil {
		sum := sha256.Sum256([]byte(strings.Join(ready, "\n")))
		if err := engine.WithPodTemplateAnnotations(map[string]string{
			mcpReadyAnnotation: hex.EncodeToString(sum[:8]),
		})(d); err != nil {
			return err
		}
	}
	return preparePods(d, configMaps, secrets, hpaEnabled(run.CR.Spec.HPA), run.CachedDeployment)
}

// prepareMCPDeployment adds the hash of the TLS Secret the server mounts, so a rotated
// certificate rolls the pods, and keeps the live replicas while an HPA owns them; while the
// Secret does not exist the Deployment waits for it (engine.MountedSecrets).
func prepareMCPDeployment(run *mcpRun, d *appsv1.Deployment) error {
	secrets, err := engine.MountedSecrets(run.References(engine.Secrets), d, run.State.inputs.Secrets)
	if err != nil {
		return err
	}
	return preparePods(d, nil, secrets, hpaEnabled(run.CR.Spec.HPA), run.CachedDeployment)
}

// preparePods is what both kinds do to their Deployment before it is applied: the hash of
// every ConfigMap and Secret the pods read at start-up on the pod template (a change rolls
// them), and, while an HPA owns the replicas, the live count.
func preparePods(d *appsv1.Deployment, configMaps []*corev1.ConfigMap, secrets []*corev1.Secret, hpaOwnsReplicas bool, live func(name string) *appsv1.Deployment) error {
	hashes, err := engine.ConfigHashAnnotations(configMaps, secrets)
	if err != nil {
		return err
	}
	if err := engine.WithPodTemplateAnnotations(hashes)(d); err != nil {
		return err
	}
	if hpaOwnsReplicas {
		if live := live(d.Name); live != nil {
			d.Spec.Replicas = live.Spec.Replicas
		}
	}
	return nil
}

// gatewayConfigMaps returns the ConfigMaps the pods read: the rendered routing ConfigMap as
// rendered, the others as watched; missing ones are left out (the references step reports
// them). It fails while a watch has not synced (engine.ErrNotSynced).
func gatewayConfigMaps(run *gatewayRun) ([]*corev1.ConfigMap, error) {
	var configMaps []*corev1.ConfigMap
	for _, ref := range run.State.inputs.ConfigMaps {
		if ro, ok := run.Rendered[renderedRoutingAsset]; ok && ro.Wanted && ref.Name == run.State.names.RoutingConfigMap {
			configMaps = append(configMaps, ro.Object.(*corev1.ConfigMap))
			continue
		}
		obj, err := run.References(engine.ConfigMaps).Find(ref)
		if err != nil {
			return nil, err
		}
		if obj != nil {
			configMaps = append(configMaps, obj.(*corev1.ConfigMap))
		}
	}
	return configMaps, nil
}

// secretNamed is a watched Secret of the Gateway's namespace, or nil.
func secretNamed(run *gatewayRun) func(name string) *corev1.Secret {
	return func(name string) *corev1.Secret {
		obj, err := run.References(engine.Secrets).Get(types.NamespacedName{Namespace: run.CR.Namespace, Name: name})
		if err != nil {
			return nil
		}
		s, _ := obj.(*corev1.Secret)
		return s
	}
}

// mcpReadyAnnotation on the gateway's pod template is the hash of its discovered MCP servers
// that are ready (readyMCPServers): one becoming ready restarts the gateway onto it.
const mcpReadyAnnotation = "operator.llm-infra.io/mcp-servers-ready"
