package inferencegateway

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// TestPodDisruptionBudgets: a Gateway's or MCP's Deployment with more than one replica, or an
// autoscaler that keeps more than one, gets a PodDisruptionBudget of exactly its pods, rendered
// as a sync applies it (the Kind's render, which the engine completes).
func TestPodDisruptionBudgets(t *testing.T) {
	hpa := func(minReplicas *int32) *v1alpha1.HPASpec {
		return &v1alpha1.HPASpec{Enabled: true, Config: &v1alpha1.CustomHorizontalPodAutoscalerSpec{MinReplicas: minReplicas, MaxReplicas: 5}}
	}
	for _, tc := range []struct {
		name   string
		render func() ([]runtime.Object, error)
		want   bool
	}{
		{"Gateway, replicas unset", func() ([]runtime.Object, error) {
			return GatewayKind(&registry.Deps{}).RenderCR(testGateway(v1alpha1.GatewaySpec{}))
		}, false},
		{"Gateway, 1 replica", func() ([]runtime.Object, error) {
			return GatewayKind(&registry.Deps{}).RenderCR(testGateway(v1alpha1.GatewaySpec{Replicas: ptr.To[int32](1)}))
		}, false},
		{"Gateway, 3 replicas", func() ([]runtime.Object, error) {
			return GatewayKind(&registry.Deps{}).RenderCR(testGateway(v1alpha1.GatewaySpec{Replicas: ptr.To[int32](3)}))
		}, true},
		{"Gateway, autoscaler from 2", func() ([]runtime.Object, error) {
			return GatewayKind(&registry.Deps{}).RenderCR(testGateway(v1alpha1.GatewaySpec{HPA: hpa(ptr.To[int32](2))}))
		}, true},
		{"Gateway, autoscaler from 1", func() ([]runtime.Object, error) {
			return GatewayKind(&registry.Deps{}).RenderCR(testGateway(v1alpha1.GatewaySpec{HPA: hpa(ptr.To[int32](1))}))
		}, false},
		{"Gateway, autoscaler with the default minimum", func() ([]runtime.Object, error) {
			return GatewayKind(&registry.Deps{}).RenderCR(testGateway(v1alpha1.GatewaySpec{HPA: hpa(nil)}))
		}, false},
		{"MCP, 1 replica", func() ([]runtime.Object, error) {
			return MCPKind(&registry.Deps{}).RenderCR(testMCP("tools", v1alpha1.MCPSpec{Replicas: ptr.To[int32](1)}))
		}, false},
		{"MCP, 2 replicas", func() ([]runtime.Object, error) {
			return MCPKind(&registry.Deps{}).RenderCR(testMCP("tools", v1alpha1.MCPSpec{Replicas: ptr.To[int32](2)}))
		}, true},
		{"MCP, autoscaler from 3", func() ([]runtime.Object, error) {
			return MCPKind(&registry.Deps{}).RenderCR(testMCP("tools", v1alpha1.MCPSpec{HPA: hpa(ptr.To[int32](3))}))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := tc.render()
			if err != nil {
				t.Fatal(err)
			}
			var d *appsv1.Deployment
			var pdb *policyv1.PodDisruptionBudget
			for _, o := range objs {
				switch o := o.(type) {
				case *appsv1.Deployment:
					d = o
				case *policyv1.PodDisruptionBudget:
					pdb = o
				}
			}
			if got := pdb != nil; got != tc.want {
				t.Fatalf("PodDisruptionBudget rendered = %v, want %v", got, tc.want)
			}
			if pdb == nil {
				return
			}
			if pdb.Name != d.Name || pdb.Namespace != d.Namespace {
				t.Errorf("budget %s/%s, want the Deployment's name %s/%s", pdb.Namespace, pdb.Name, d.Namespace, d.Name)
			}
			if !equality.Semantic.DeepEqual(pdb.Spec.Selector, d.Spec.Selector) {
				t.Errorf("budget selects %v, want the Deployment's %v", pdb.Spec.Selector, d.Spec.Selector)
			}
			if len(pdb.OwnerReferences) != 1 || pdb.OwnerReferences[0].Controller == nil || !*pdb.OwnerReferences[0].Controller {
				t.Errorf("owners = %v, want the CR as controller", pdb.OwnerReferences)
			}
		})
	}
}
