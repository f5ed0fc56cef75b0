package v1alpha1

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// HPASpec is a HorizontalPodAutoscaler (autoscaling/v2) for the Deployment of a Gateway or an
// MCP, named <name>-hpa.
type HPASpec struct {
	// enabled creates the HorizontalPodAutoscaler, which then owns the Deployment's replica
	// count; false deletes it. Default false.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled,omitempty"`

	// config is the autoscaler's range, metrics and behaviour. Unset, 1 to 10 replicas at 80%
	// average CPU utilisation.
	// +optional
	Config *CustomHorizontalPodAutoscalerSpec `json:"config,omitempty"`
}

// CustomHorizontalPodAutoscalerSpec is the spec of the HorizontalPodAutoscaler, except its
// target, which is always the object's own Deployment.
//
// +kubebuilder:validation:XValidation:rule="!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",fieldPath=".minReplicas",message="spec.hpa.config.minReplicas must not exceed spec.hpa.config.maxReplicas"
type CustomHorizontalPodAutoscalerSpec struct {
	// scaleTargetRef is accepted for upstream's YAML but can only name the object's own
	// Deployment (apiVersion apps/v1, kind Deployment, the object's name): the autoscaler always
	// scales that one.
	// +optional
	ScaleTargetRef *CrossVersionObjectReference `json:"scaleTargetRef,omitempty"`

	// minReplicas is the fewest replicas the autoscaler keeps, at least 1. Default 1.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MinReplicas *int32 `json:"minReplicas,omitempty"`

	// maxReplicas is the most replicas the autoscaler creates, at least minReplicas.
	// +required
	// +kubebuilder:validation:Minimum=1
	MaxReplicas int32 `json:"maxReplicas"`

	// metrics decide the replica count (the largest count any metric asks for). Unset, 80%
	// average CPU utilisation.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	Metrics []autoscalingv2.MetricSpec `json:"metrics,omitempty"`

	// behavior tunes how fast the autoscaler scales up and down. Unset, the Kubernetes defaults.
	// +optional
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// CrossVersionObjectReference names the object an autoscaler scales: the fields of
// autoscaling/v2's type of that name, with length bounds so that the CEL rule comparing it with
// the object's name stays within the API server's cost budget.
type CrossVersionObjectReference struct {
	// kind of the object; must be Deployment.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Kind string `json:"kind"`

	// name of the object; must be the Gateway's (or MCP's) own name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// apiVersion of the object; apps/v1 if set.
	// +optional
	// +kubebuilder:validation:MaxLength=317
	APIVersion string `json:"apiVersion,omitempty"`
}
