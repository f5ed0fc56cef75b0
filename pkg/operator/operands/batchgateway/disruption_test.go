package batchgateway

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// TestPodDisruptionBudgets: a component Deployment with more than one replica gets a
// PodDisruptionBudget of its pods, rendered as a sync applies it (the Kind's render, which
// the engine completes); one with one replica or none gets none.
func TestPodDisruptionBudgets(t *testing.T) {
	names := NamesFor("gw")
	for _, tc := range []struct {
		name string
		spec func(*batchv1alpha1.LLMBatchGatewaySpec)
		want []string
	}{
		{name: "one replica each: none", spec: func(*batchv1alpha1.LLMBatchGatewaySpec) {}},
		{name: "apiserver scaled", spec: func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.APIServer.Replicas = ptr.To[int32](3) }, want: []string{names.APIServer}},
		{name: "processor scaled", spec: func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.Processor.Replicas = ptr.To[int32](2) }, want: []string{names.Processor}},
		{name: "gc scaled", spec: func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.GC.Replicas = ptr.To[int32](2) }, want: []string{names.GC}},
		{name: "apiserver stopped", spec: func(s *batchv1alpha1.LLMBatchGatewaySpec) { s.APIServer.Replicas = ptr.To[int32](0) }},
		{name: "async-processor scaled", spec: func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.Processor.AsyncConfig.Replicas = ptr.To[int32](3)
		}, want: []string{names.AsyncProcessor}},
		{name: "async-processor with one replica", spec: func(s *batchv1alpha1.LLMBatchGatewaySpec) {
			*s = asyncSpec()
			s.Processor.AsyncConfig.Replicas = ptr.To[int32](1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := minimalSpec()
			tc.spec(&spec)
			objs, err := Kind(&registry.Deps{Image: func(string) string { return "image" }}).RenderCR(testCR(spec))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				pdb, ok := o.(*policyv1.PodDisruptionBudget)
				if !ok {
					continue
				}
				got = append(got, pdb.Name)
				d := deploymentNamed(t, objs, pdb.Name)
				if !equality.Semantic.DeepEqual(pdb.Spec.Selector, d.Spec.Selector) {
					t.Errorf("%s selects %v, want the Deployment's %v", pdb.Name, pdb.Spec.Selector, d.Spec.Selector)
				}
				if len(pdb.OwnerReferences) != 1 || pdb.OwnerReferences[0].Kind != "LLMBatchGateway" {
					t.Errorf("%s owners = %v, want the CR", pdb.Name, pdb.OwnerReferences)
				}
			}
			if !equality.Semantic.DeepEqual(got, tc.want) {
				t.Errorf("budgets = %v, want %v", got, tc.want)
			}
		})
	}
}

// deploymentNamed is the rendered Deployment of the name.
func deploymentNamed(t *testing.T, objs []runtime.Object, name string) *appsv1.Deployment {
	t.Helper()
	for _, o := range objs {
		if d, ok := o.(*appsv1.Deployment); ok && d.Name == name {
			return d
		}
	}
	t.Fatalf("no Deployment %s rendered", name)
	return nil
}
