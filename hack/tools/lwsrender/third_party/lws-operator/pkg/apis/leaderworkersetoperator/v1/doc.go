// Package v1 contains API Schema definitions for the OpenShiftOperator v1 API group
// +k8s:defaulter-gen=TypeMeta
// +k8s:deepcopy-gen=package,register
// +groupName=operator.openshift.io
// +groupGoName=OpenShiftOperator
// +kubebuilder:validation:Optional
package v1
