// +groupName=operators.coreos.com

// Package v1 contains resources types for version v1 of the operators.coreos.com API group.
package v1
