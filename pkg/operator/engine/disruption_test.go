package engine

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func budgetTestDeployment(replicas *int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "ns"},
		Spec: appsv1.DeploymentSpec{
			Replicas: replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gw"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "gw", "extra": "x"}}},
		},
	}
}

func budgetTestHPA(target string, minReplicas *int32) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: target + "-hpa", Namespace: "ns"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
			MinReplicas:    minReplicas,
			MaxReplicas:    10,
		},
	}
}

func TestSetDisruptionBudgets(t *testing.T) {
	const (
		deploymentAsset = "d.yaml"
		hpaAsset        = "hpa.yaml"
		budgetAsset     = "pdb.yaml"
	)
	assets := []Asset{{Path: deploymentAsset}, {Path: hpaAsset}, {Path: budgetAsset, DisruptionBudgetOf: deploymentAsset}}
	for _, tc := range []struct {
		name             string
		replicas         *int32
		deploymentWanted bool
		hpa              *autoscalingv2.HorizontalPodAutoscaler
		hpaWanted        bool
		want             bool
	}{
		{name: "two replicas", replicas: ptr.To[int32](2), deploymentWanted: true, want: true},
		{name: "one replica: no budget (deleted if there was one)", replicas: ptr.To[int32](1), deploymentWanted: true},
		{name: "zero replicas", replicas: ptr.To[int32](0), deploymentWanted: true},
		{name: "replicas unset: the API's default of 1", deploymentWanted: true},
		{name: "Deployment not wanted", replicas: ptr.To[int32](3)},
		{name: "autoscaler with minReplicas 2", deploymentWanted: true, hpa: budgetTestHPA("gw", ptr.To[int32](2)), hpaWanted: true, want: true},
		{name: "autoscaler with minReplicas 1", deploymentWanted: true, hpa: budgetTestHPA("gw", ptr.To[int32](1)), hpaWanted: true},
		{name: "autoscaler without minReplicas (1)", deploymentWanted: true, hpa: budgetTestHPA("gw", nil), hpaWanted: true},
		{name: "autoscaler not wanted", deploymentWanted: true, hpa: budgetTestHPA("gw", ptr.To[int32](3))},
		{name: "autoscaler of another Deployment", deploymentWanted: true, hpa: budgetTestHPA("other", ptr.To[int32](3)), hpaWanted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := budgetTestDeployment(tc.replicas)
			pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "ns"}}
			var hpa *autoscalingv2.HorizontalPodAutoscaler
			if tc.hpa != nil {
				hpa = tc.hpa
			} else {
				hpa = budgetTestHPA("gw", nil)
			}
			objs := []Rendered{
				{Asset: deploymentAsset, Object: d, Wanted: tc.deploymentWanted},
				{Asset: hpaAsset, Object: hpa, Wanted: tc.hpaWanted},
				{Asset: budgetAsset, Object: pdb, Wanted: true},
			}
			if err := setDisruptionBudgets(assets, objs); err != nil {
				t.Fatal(err)
			}
			if got := objs[2].Wanted; got != tc.want {
				t.Errorf("wanted = %v, want %v", got, tc.want)
			}
			// The spec is filled in either way: exactly the Deployment's selector, one pod at a time.
			if !equality.Semantic.DeepEqual(pdb.Spec.Selector, d.Spec.Selector) || pdb.Spec.Selector == d.Spec.Selector {
				t.Errorf("selector = %v, want a copy of the Deployment's %v", pdb.Spec.Selector, d.Spec.Selector)
			}
			if pdb.Spec.MaxUnavailable == nil || *pdb.Spec.MaxUnavailable != intstr.FromInt32(1) || pdb.Spec.MinAvailable != nil {
				t.Errorf("maxUnavailable = %v, minAvailable = %v; want 1 and none", pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable)
			}
			if p := pdb.Spec.UnhealthyPodEvictionPolicy; p == nil || *p != policyv1.AlwaysAllow {
				t.Errorf("unhealthyPodEvictionPolicy = %v, want AlwaysAllow", p)
			}
		})
	}
}

func TestSetDisruptionBudgetsMisdeclared(t *testing.T) {
	d := budgetTestDeployment(ptr.To[int32](2))
	pdb := &policyv1.PodDisruptionBudget{}
	for _, tc := range []struct {
		name    string
		assets  []Asset
		objs    []Rendered
		wantErr string
	}{
		{"budget not rendered", []Asset{{Path: "pdb", DisruptionBudgetOf: "d"}}, []Rendered{{Asset: "d", Object: d}}, "has no PodDisruptionBudget"},
		{"budget of another kind", []Asset{{Path: "pdb", DisruptionBudgetOf: "d"}}, []Rendered{{Asset: "d", Object: d}, {Asset: "pdb", Object: d}}, "not a PodDisruptionBudget"},
		{"Deployment not rendered", []Asset{{Path: "pdb", DisruptionBudgetOf: "d"}}, []Rendered{{Asset: "pdb", Object: pdb}}, "has no Deployment"},
		{"Deployment of another kind", []Asset{{Path: "pdb", DisruptionBudgetOf: "d"}}, []Rendered{{Asset: "d", Object: pdb}, {Asset: "pdb", Object: pdb}}, "not a Deployment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := setDisruptionBudgets(tc.assets, tc.objs)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
