package inferencegateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/operator/events"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// objectRun is what the syncs of both kinds share: the rendered objects of one CR and how to
// apply them.
type objectRun struct {
	*Operand
	key      string
	owner    metav1.Object
	recorder events.Recorder
	applier  engine.Applier
	stamp    engine.Renderer
	rendered map[string]renderedObject
	// generations are the Deployment generations recorded in the CR's status.
	generations []operatorv1.GenerationStatus
	// applied is the Deployment this sync applied; only its generation may be recorded.
	applied *appsv1.Deployment
	// prepare changes a component's Deployment before it is applied (hash annotations, the
	// live replicas while an HPA owns them).
	prepare func(d *appsv1.Deployment) error
	// bestEffort says which optional objects the CR wants without asking for them (nil: none).
	bestEffort func(asset string) bool
}

func (run *objectRun) isBestEffort(asset string) bool {
	return run.bestEffort != nil && run.bestEffort(asset)
}

// ApplyAsset applies one rendered object, or, when the CR does not ask for it, deletes the
// object of that name if this CR's operator made it. Objects of an optional API need its CRD:
// asking for one without it is reported, naming the CRD and the field.
func (run *objectRun) ApplyAsset(ctx context.Context, asset string) error {
	ro, ok := run.rendered[asset]
	if !ok {
		return fmt.Errorf("%s was not rendered", asset)
	}
	if u, isCustom := ro.obj.(*unstructured.Unstructured); isCustom {
		gvr := engine.GVRFor(u.GroupVersionKind())
		if err := run.optional.Installed(gvr); err != nil {
			if !ro.wanted {
				return nil
			}
			if run.isBestEffort(asset) {
				return engine.Note("no %s for %s: its CustomResourceDefinition %s is not installed (install the Prometheus operator to have the gateway's metrics scraped; the operator picks it up without a restart)",
					u.GetKind(), featureOf(asset), engine.CRDName(gvr))
			}
			return engine.Problem(engine.ReasonCRDMissing,
				"%s asks for a %s, whose CustomResourceDefinition %s is not installed: install it and the operator creates the object without a restart, or turn %s off",
				featureOf(asset), u.GetKind(), engine.CRDName(gvr), featureOf(asset))
		}
	}
	if !ro.wanted {
		return run.applier.DeleteObject(ctx, ro.obj, engine.ControlledBy(run.owner), engine.FromCache)
	}
	m, err := meta.Accessor(ro.obj)
	if err != nil {
		return err
	}
	run.stamp.Stamp(m)
	if d, isDeployment := ro.obj.(*appsv1.Deployment); isDeployment {
		if err := engine.RunHooks(d, append([]engine.DeploymentHook{run.prepare}, podSecurity...)...); err != nil {
			return err
		}
		actual, err := run.applier.ApplyDeployment(ctx, d, run.generations)
		if err != nil {
			return err
		}
		run.applied = actual
		return nil
	}
	err = run.applier.Apply(ctx, ro.obj)
	if se, ok := err.(*engine.StepError); ok && se.Reason == engine.ReasonObjectNotOwned && run.isBestEffort(asset) {
		// Someone else's object of the name, where the CR did not ask for ours: theirs stays,
		// and it is no problem of the CR's (issue 16, defect 7).
		return engine.Note("%s: the operator creates none while it is there", se.Message)
	}
	return err
}

// RemoveAsset deletes an asset's object if this CR's operator made it (a walk backwards; CRs
// are removed by garbage collection).
func (run *objectRun) RemoveAsset(ctx context.Context, asset string) error {
	ro, ok := run.rendered[asset]
	if !ok {
		return nil
	}
	return run.applier.DeleteObject(ctx, ro.obj, engine.ControlledBy(run.owner), engine.FromCache)
}

func (o *Operand) newObjectRun(gvk schema.GroupVersionKind, cr metav1.Object, generations []operatorv1.GenerationStatus) objectRun {
	recorder := o.events(gvk, cr)
	return objectRun{
		Operand:     o,
		key:         engine.ObjectKey(cr),
		owner:       cr,
		recorder:    recorder,
		applier:     engine.Applier{Clients: o.clients, Cache: o.cache, Recorder: recorder, Adopt: engine.ControlledBy(cr), TrackAnnotations: true},
		stamp:       ownerStamp(gvk, cr),
		generations: generations,
	}
}

// gatewayRun is the sync of one Gateway.
type gatewayRun struct {
	objectRun
	cr    *v1alpha1.Gateway
	names Names
	// mcpServers are the static and discovered MCP server URLs.
	mcpServers []string
	// mcpReady are the discovered MCP servers that are ready (nil: none discovered).
	mcpReady []string
	// inputs are what the pods read at start-up, watched one by one.
	inputs podInputs
	// invalid holds the spec's validation errors; nothing is applied then.
	invalid error
}

func (o *Operand) newGatewayRun(gw *v1alpha1.Gateway) *gatewayRun {
	run := &gatewayRun{objectRun: o.newObjectRun(gatewayGVK, gw, gw.Status.Generations), cr: gw, names: NamesFor(gw)}
	run.prepare = run.prepareDeployment
	run.bestEffort = func(asset string) bool { return bestEffort(asset, &gw.Spec) }
	return run
}

// prepareDeployment adds the hash of everything the pods read at start-up, and keeps the live
// replicas while an HPA owns them (an apply must never reset what the HPA scaled to).
func (run *gatewayRun) prepareDeployment(d *appsv1.Deployment) error {
	configMaps, secrets := run.readInputs()
	if run.mcpReady != nil {
		sum := sha256.Sum256([]byte(strings.Join(run.mcpReady, "\n")))
		if err := engine.WithPodTemplateAnnotations(map[string]string{
			mcpReadyAnnotation: hex.EncodeToString(sum[:8]),
		})(d); err != nil {
			return err
		}
	}
	return run.preparePods(d, configMaps, secrets, hpaEnabled(run.cr.Spec.HPA))
}

// mcpReadyAnnotation on the gateway's pod template is the hash of its discovered MCP servers
// that are ready (readyMCPServers): one becoming ready restarts the gateway onto it.
const mcpReadyAnnotation = "operator.llm-infra.io/mcp-servers-ready"

// preparePods is what both kinds do to their Deployment before it is applied: the hash of
// every ConfigMap and Secret the pods read at start-up on the pod template (a change rolls
// them), and, while an HPA owns the replicas, the live count.
func (run *objectRun) preparePods(d *appsv1.Deployment, configMaps []*corev1.ConfigMap, secrets []*corev1.Secret, hpaOwnsReplicas bool) error {
	hashes, err := engine.ConfigHashAnnotations(configMaps, secrets)
	if err != nil {
		return err
	}
	if err := engine.WithPodTemplateAnnotations(hashes)(d); err != nil {
		return err
	}
	if hpaOwnsReplicas {
		if live := run.cachedDeployment(run.owner, d.Name); live != nil {
			d.Spec.Replicas = live.Spec.Replicas
		}
	}
	return nil
}

// readInputs returns the ConfigMaps (the rendered routing ConfigMap as rendered, the others as
// watched) and Secrets the pods read; missing ones are left out (the references step reports
// them).
func (run *gatewayRun) readInputs() ([]*corev1.ConfigMap, []*corev1.Secret) {
	var configMaps []*corev1.ConfigMap
	for _, ref := range run.inputs.ConfigMaps {
		if ro, ok := run.rendered[renderedRoutingAsset]; ok && ro.wanted && ref.Name == run.names.RoutingConfigMap {
			configMaps = append(configMaps, ro.obj.(*corev1.ConfigMap))
			continue
		}
		if obj, err := run.configMaps.Get(ref); err == nil {
			configMaps = append(configMaps, obj.(*corev1.ConfigMap))
		}
	}
	var secrets []*corev1.Secret
	for _, ref := range run.inputs.Secrets {
		if obj, err := run.secrets.Get(ref); err == nil {
			secrets = append(secrets, obj.(*corev1.Secret))
		}
	}
	return configMaps, secrets
}

// secretNamed is a watched Secret of the Gateway's namespace, or nil.
func (run *gatewayRun) secretNamed(name string) *corev1.Secret {
	obj, err := run.secrets.Get(types.NamespacedName{Namespace: run.cr.Namespace, Name: name})
	if err != nil {
		return nil
	}
	s, _ := obj.(*corev1.Secret)
	return s
}

// mcpRun is the sync of one MCP server.
type mcpRun struct {
	objectRun
	cr *v1alpha1.MCP
	// inputs are what the pods read at start-up (the TLS Secret), watched.
	inputs podInputs
}

func (o *Operand) newMCPRun(mcp *v1alpha1.MCP) *mcpRun {
	run := &mcpRun{objectRun: o.newObjectRun(mcpGVK, mcp, mcp.Status.Generations), cr: mcp}
	run.prepare = run.prepareDeployment
	return run
}

// prepareDeployment adds the hash of the TLS Secret the server mounts, so a rotated
// certificate rolls the pods, and keeps the live replicas while an HPA owns them.
func (run *mcpRun) prepareDeployment(d *appsv1.Deployment) error {
	var secrets []*corev1.Secret
	for _, ref := range run.inputs.Secrets {
		if obj, err := run.mcpSecrets.Get(ref); err == nil {
			secrets = append(secrets, obj.(*corev1.Secret))
		}
	}
	return run.preparePods(d, nil, secrets, hpaEnabled(run.cr.Spec.HPA))
}

// nonRootUser is the user the pods run as when their manifest names none: the gateway's image
// (distroless) runs as root by default, which the restricted profile's runAsNonRoot refuses;
// 65532 is distroless's own "nonroot" user.
const nonRootUser = 65532

// podSecurity are the hooks that make every Deployment of both kinds run under the restricted
// Pod Security profile.
var podSecurity = []engine.DeploymentHook{engine.WithRestrictedSecurityContext, withNonRootUser}

// withNonRootUser gives the pod a non-root user unless it has one.
func withNonRootUser(d *appsv1.Deployment) error {
	sc := d.Spec.Template.Spec.SecurityContext
	if sc != nil && sc.RunAsUser == nil {
		sc.RunAsUser = ptr.To[int64](nonRootUser)
	}
	return nil
}
