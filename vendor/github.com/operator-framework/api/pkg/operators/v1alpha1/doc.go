// +groupName=operators.coreos.com
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/operator-framework/operator-lifecycle-manager/pkg/api/apis/operators

// Package v1alpha1 contains resources types for version v1alpha1 of the operators.coreos.com API group.
package v1alpha1
