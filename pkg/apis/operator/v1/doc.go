// Package v1 holds the LeaderWorkerSetOperator API: the singleton custom resource through which a
// cluster administrator asks llm-infra-operator to install and manage the upstream LeaderWorkerSet
// controller.
//
// +k8s:deepcopy-gen=package,register
// +groupName=operator.openshift.io
// +kubebuilder:object:generate=true
package v1
