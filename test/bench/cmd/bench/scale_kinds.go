package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	igwv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegateway"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/inferencegatewayagents"
)

// The kinds of the scale scenarios, and the scenarios.
//
// 6. The LLM batch gateway at scale: many LLMBatchGateways spread over namespaces.
// 7. The inference gateway at scale: as many Gateways next to as many LLMBatchGateways, in the
//    same namespaces, so the operator carries both operands (and LWS) at once.
// 9. Agents at scale: many Agents spread over namespaces (LWS managed too); each one's card is
//    asked for once it is Available, and no pod of the local cluster answers it.

const (
	scBatchScale   = "6-batch-scale"
	scGatewayScale = "7-gateway-scale"
	scAgentScale   = "9-agent-scale"

	// batchCRManifest is the CR every LLMBatchGateway is made from: sync dispatch, PostgreSQL,
	// S3 file storage (no PVC), no optional API.
	batchCRManifest = "test/golden/batch-gateway/batch_v1alpha1_llmbatchgateway_sync/cr.yaml"
	// gatewayCRManifest is the CR every Gateway is made from: upstream's minimal gateway (one
	// replica, the OpenAI provider with its key from a Secret, metrics on).
	gatewayCRManifest = "test/golden/inference-gateway/gateway-minimal/cr.yaml"
	// agentCRManifest is the CR every Agent is made from: the smallest golden Agent (an image,
	// upstream's defaults).
	agentCRManifest = "test/golden/inference-gateway-agents/extra-agent-minimal/cr.yaml"
)

// The operand label values of the sync metrics (engine.KeyedSync's operand name).
const (
	operandInferenceGateway = inferencegateway.GatewayOperandName
)

var (
	batchGVR   = schema.GroupVersionResource{Group: batchv1alpha1.GroupName, Version: "v1alpha1", Resource: "llmbatchgateways"}
	gatewayGVR = igwv1alpha1.GroupVersion.WithResource("gateways")
	agentGVR   = igwv1alpha1.GroupVersion.WithResource("agents")
)

// credentialKeys are the keys of the credentials Secret an LLMBatchGateway names (fake values).
var credentialKeys = []string{"redis-url", "postgresql-url", "s3-secret-access-key"}

// batchKind is the LLMBatchGateway: its objects are named by batchgateway.NamesFor and listed
// by batchgateway.Assets().
func batchKind() *scaleKind {
	return &scaleKind{
		kind:      "LLMBatchGateway",
		gvr:       batchGVR,
		operand:   operandBatchGateway,
		manifest:  batchCRManifest,
		condition: batchv1alpha1.ConditionReady,
		partOf:    batchgateway.PartOfLabel + "=" + batchgateway.PartOfValue,
		secrets: func(t *unstructured.Unstructured) ([]*corev1.Secret, error) {
			name, _, _ := unstructured.NestedString(t.Object, "spec", "secretRef", "name")
			if name == "" {
				return nil, fmt.Errorf("no spec.secretRef.name")
			}
			data := map[string][]byte{}
			for _, k := range credentialKeys {
				data[k] = []byte("bench-fake-" + k)
			}
			return []*corev1.Secret{{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}}, nil
		},
		candidates: func(cr *unstructured.Unstructured) ([]objRef, error) {
			return candidatesFor(cr.GetNamespace(), cr.GetName())
		},
	}
}

// candidatesFor names every asset of the batch gateway operand for a CR, as the operand does
// (batchgateway.NamesFor, the manifests' placeholders).
func candidatesFor(namespace, name string) ([]objRef, error) {
	names := batchgateway.NamesFor(name)
	return renderRefs(bindata.BatchGatewayAssets, map[string]string{
		bindata.NamespacePlaceholder:                      namespace,
		bindata.BatchGatewayInstancePlaceholder:           name,
		bindata.BatchGatewayAPIServerNamePlaceholder:      names.APIServer,
		bindata.BatchGatewayProcessorNamePlaceholder:      names.Processor,
		bindata.BatchGatewayGCNamePlaceholder:             names.GC,
		bindata.BatchGatewayAsyncProcessorNamePlaceholder: names.AsyncProcessor,
	})
}

// gatewayKind is the inference Gateway: its objects are named by inferencegateway.NamesFor and
// listed by bindata.InferenceGatewayAssets.
func gatewayKind() *scaleKind {
	return &scaleKind{
		kind:      "Gateway",
		gvr:       gatewayGVR,
		operand:   operandInferenceGateway,
		manifest:  gatewayCRManifest,
		condition: igwv1alpha1.ConditionAvailable,
		partOf:    inferencegateway.PartOfLabel + "=" + inferencegateway.PartOfValue,
		secrets:   gatewaySecrets,
		candidates: func(cr *unstructured.Unstructured) ([]objRef, error) {
			gw, err := toGateway(cr)
			if err != nil {
				return nil, err
			}
			return gatewayCandidates(gw)
		},
	}
}

func toGateway(cr *unstructured.Unstructured) (*igwv1alpha1.Gateway, error) {
	gw := &igwv1alpha1.Gateway{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cr.Object, gw); err != nil {
		return nil, fmt.Errorf("Gateway %s/%s: %w", cr.GetNamespace(), cr.GetName(), err)
	}
	return gw, nil
}

// gatewayCandidates names every asset of the inference gateway operand for a Gateway, as the
// operand does (inferencegateway.NamesFor, the manifests' placeholders).
func gatewayCandidates(gw *igwv1alpha1.Gateway) ([]objRef, error) {
	names := inferencegateway.NamesFor(gw)
	return renderRefs(bindata.InferenceGatewayAssets, map[string]string{
		bindata.NamespacePlaceholder:                      gw.Namespace,
		bindata.InferenceGatewayInstancePlaceholder:       gw.Name,
		bindata.InferenceGatewayServiceAccountPlaceholder: names.ServiceAccount,
		bindata.InferenceGatewayImagePlaceholder:          gw.Spec.Image,
	})
}

// gatewaySecrets are the Secrets of the keys the Gateway's providers read (spec.providers[].env
// secretKeyRef), one fake value per key.
func gatewaySecrets(t *unstructured.Unstructured) ([]*corev1.Secret, error) {
	gw, err := toGateway(t)
	if err != nil {
		return nil, err
	}
	byName := map[string]*corev1.Secret{}
	var out []*corev1.Secret
	for _, p := range gw.Spec.Providers {
		for _, e := range p.Env {
			if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				continue
			}
			ref := e.ValueFrom.SecretKeyRef
			s, ok := byName[ref.Name]
			if !ok {
				s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: ref.Name}, Data: map[string][]byte{}}
				byName[ref.Name] = s
				out = append(out, s)
			}
			s.Data[ref.Key] = []byte("bench-fake-" + ref.Key)
		}
	}
	return out, nil
}

// agentKind is the Agent: its objects are named after it, listed by bindata.AgentAssets. It is
// converged once Available (its Deployment has an available replica): Ready needs the agent's
// card, which no pod of the local cluster serves.
func agentKind() *scaleKind {
	return &scaleKind{
		kind:      "Agent",
		gvr:       agentGVR,
		operand:   inferencegatewayagents.AgentOperandName,
		manifest:  agentCRManifest,
		condition: igwv1alpha1.ConditionAvailable,
		partOf:    inferencegateway.PartOfLabel + "=" + inferencegateway.PartOfValue,
		secrets:   func(*unstructured.Unstructured) ([]*corev1.Secret, error) { return nil, nil },
		candidates: func(cr *unstructured.Unstructured) ([]objRef, error) {
			image, _, _ := unstructured.NestedString(cr.Object, "spec", "image")
			return renderRefs(bindata.AgentAssets, map[string]string{
				bindata.NamespacePlaceholder:                cr.GetNamespace(),
				bindata.InferenceGatewayInstancePlaceholder: cr.GetName(),
				bindata.InferenceGatewayImagePlaceholder:    image,
			})
		},
	}
}

// renderRefs names the object of each asset with the placeholders substituted.
func renderRefs(assets []string, placeholders map[string]string) ([]objRef, error) {
	r := engine.Renderer{Manifests: bindata.FS, Placeholders: placeholders}
	refs := make([]objRef, 0, len(assets))
	for _, asset := range assets {
		obj, err := r.Manifest(asset)
		if err != nil {
			return nil, err
		}
		refs = append(refs, refOf(asset, obj))
	}
	return refs, nil
}

// scenarioBatchScale is scenario 6: BENCH_SCALE_CRS LLMBatchGateways in BENCH_SCALE_NAMESPACES
// namespaces, then BENCH_SCALE_SECRETS unrelated Secrets.
func (b *bench) scenarioBatchScale(ctx context.Context) error {
	logf("scenario 6: %d LLMBatchGateways in %d namespaces (LWS managed too)", b.scaleCRs, b.scaleNS)
	batch := batchKind()
	return b.runScale(ctx, &scaleScenario{
		sc:              scBatchScale,
		namespacePrefix: "bench-batch",
		namespaces:      b.scaleNS,
		kinds:           []*scaleKind{batch},
		counts:          []int{b.scaleCRs},
		resync:          []*scaleKind{batch},
		loadSecrets:     b.scaleSecrets,
	})
}

// scenarioGatewayScale is scenario 7: BENCH_GATEWAY_CRS Gateways and BENCH_SCALE_CRS
// LLMBatchGateways created together in BENCH_SCALE_NAMESPACES namespaces; the forced resync
// touches the Gateways. The unrelated Secrets are scenario 6's.
func (b *bench) scenarioGatewayScale(ctx context.Context) error {
	logf("scenario 7: %d Gateways and %d LLMBatchGateways in %d namespaces (LWS managed too)", b.gatewayCRs, b.scaleCRs, b.scaleNS)
	batch, gateway := batchKind(), gatewayKind()
	return b.runScale(ctx, &scaleScenario{
		sc:              scGatewayScale,
		namespacePrefix: "bench-igw",
		namespaces:      b.scaleNS,
		kinds:           []*scaleKind{gateway, batch},
		counts:          []int{b.gatewayCRs, b.scaleCRs},
		resync:          []*scaleKind{gateway},
	})
}

// scenarioAgentScale is scenario 9: BENCH_AGENT_CRS Agents in BENCH_SCALE_NAMESPACES namespaces;
// the forced resync touches them all. The unrelated Secrets are scenario 6's.
func (b *bench) scenarioAgentScale(ctx context.Context) error {
	logf("scenario 9: %d Agents in %d namespaces (LWS managed too)", b.agentCRs, b.scaleNS)
	agent := agentKind()
	return b.runScale(ctx, &scaleScenario{
		sc:              scAgentScale,
		namespacePrefix: "bench-agents",
		namespaces:      b.scaleNS,
		kinds:           []*scaleKind{agent},
		counts:          []int{b.agentCRs},
		resync:          []*scaleKind{agent},
	})
}
