package engine

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// DisruptionBudget makes pdb the PodDisruptionBudget of Deployment d and says whether it is
// wanted: it selects exactly d's pods (d's own selector), lets one of them be evicted at a
// time, and is wanted only while d is wanted and keeps more than one replica. With one replica
// a budget of maxUnavailable 1 protects nothing, and a minAvailable 1 would block every node
// drain. hpa is the wanted HorizontalPodAutoscaler of d, if any: it owns the replicas then
// (d has none rendered), and its minReplicas (default 1) is the fewest d keeps.
//
// maxUnavailable rather than minAvailable: it holds for any replica count, also while an
// autoscaler changes it, and a rolling update's own surge is not counted against it.
// Unhealthy pods may always be evicted (AlwaysAllow): a pod that crash-loops on a bad
// configuration must not stop a node's drain.
func DisruptionBudget(pdb *policyv1.PodDisruptionBudget, d *appsv1.Deployment, deploymentWanted bool, hpa *autoscalingv2.HorizontalPodAutoscaler) (wanted bool) {
	pdb.Spec.Selector = d.Spec.Selector.DeepCopy()
	pdb.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1))
	pdb.Spec.MinAvailable = nil
	pdb.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
	return deploymentWanted && fewestReplicas(d, hpa) > 1
}

// fewestReplicas is the fewest replicas d runs: its own, or the autoscaler's minReplicas while
// one owns them; a Deployment without either has the API's default, 1.
func fewestReplicas(d *appsv1.Deployment, hpa *autoscalingv2.HorizontalPodAutoscaler) int32 {
	switch {
	case d.Spec.Replicas != nil:
		return *d.Spec.Replicas
	case hpa != nil && hpa.Spec.MinReplicas != nil:
		return *hpa.Spec.MinReplicas
	default:
		return 1
	}
}

// setDisruptionBudgets completes every rendered PodDisruptionBudget whose asset names the
// Deployment it protects (Asset.DisruptionBudgetOf) from that Deployment as rendered, and the
// HorizontalPodAutoscaler that scales it (DisruptionBudget). The operand renders only the
// budget's name; this is the one place a budget's spec and whether it is wanted are decided.
func setDisruptionBudgets(assets []Asset, objs []Rendered) error {
	byAsset := make(map[string]int, len(objs))
	for i, ro := range objs {
		byAsset[ro.Asset] = i
	}
	for _, a := range assets {
		if a.DisruptionBudgetOf == "" {
			continue
		}
		i, ok := byAsset[a.Path]
		if !ok {
			return fmt.Errorf("%s: the render has no PodDisruptionBudget", a.Path)
		}
		pdb, ok := objs[i].Object.(*policyv1.PodDisruptionBudget)
		if !ok {
			return fmt.Errorf("%s: rendered as %T, not a PodDisruptionBudget", a.Path, objs[i].Object)
		}
		j, ok := byAsset[a.DisruptionBudgetOf]
		if !ok {
			return fmt.Errorf("%s: the render has no Deployment %s", a.Path, a.DisruptionBudgetOf)
		}
		d, ok := objs[j].Object.(*appsv1.Deployment)
		if !ok {
			return fmt.Errorf("%s: %s rendered as %T, not a Deployment", a.Path, a.DisruptionBudgetOf, objs[j].Object)
		}
		objs[i].Wanted = DisruptionBudget(pdb, d, objs[j].Wanted, autoscalerOf(objs, d))
	}
	return nil
}

// autoscalerOf is the wanted HorizontalPodAutoscaler among objs that scales d, or nil.
func autoscalerOf(objs []Rendered, d *appsv1.Deployment) *autoscalingv2.HorizontalPodAutoscaler {
	for _, ro := range objs {
		hpa, ok := ro.Object.(*autoscalingv2.HorizontalPodAutoscaler)
		if !ok || !ro.Wanted {
			continue
		}
		ref := hpa.Spec.ScaleTargetRef
		if ref.Kind == "Deployment" && ref.Name == d.Name && hpa.Namespace == d.Namespace {
			return hpa
		}
	}
	return nil
}
