// Package operatorclient builds library-go's operator client for the LeaderWorkerSetOperator
// singleton: the client every library-go controller uses to read the CR's spec and to write
// conditions into its status.
package operatorclient

import (
	"fmt"

	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/genericoperatorclient"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	operatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	applyv1 "github.com/llm-infra/llm-infra-operator/pkg/generated/applyconfigurations/operator/v1"
)

var (
	// GVR is the resource the operator client reads and writes.
	GVR = operatorv1.GroupVersion.WithResource("leaderworkersetoperators")
	// GVK is the kind of the singleton CR.
	GVK = operatorv1.GroupVersion.WithKind("LeaderWorkerSetOperator")
)

// New returns library-go's operator client for the cluster-scoped LeaderWorkerSetOperator named
// "cluster", and the dynamic informer factory behind it. Start the factory, and wait for its
// caches, before starting controllers that use the client.
func New(clock clock.PassiveClock, config *rest.Config) (v1helpers.OperatorClientWithFinalizers, dynamicinformer.DynamicSharedInformerFactory, error) {
	client, informers, err := genericoperatorclient.NewClusterScopedOperatorClientWithConfigName(
		clock, config, GVR, GVK, operatorv1.SingletonName, ExtractOperatorSpec, ExtractOperatorStatus)
	if err != nil {
		return nil, nil, fmt.Errorf("create operator client for %s: %w", GVR.GroupResource(), err)
	}
	return client, informers, nil
}

// ExtractOperatorSpec returns the part of the CR's spec.OperatorSpec that fieldManager owns,
// through server-side apply's managedFields. library-go compares it with what a controller wants
// to apply, and skips the write when nothing changed. It returns nil when fieldManager owns
// nothing in the spec.
func ExtractOperatorSpec(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorSpecApplyConfiguration, error) {
	cr, err := fromUnstructured(obj)
	if err != nil {
		return nil, err
	}
	applied, err := applyv1.ExtractLeaderWorkerSetOperator(cr, fieldManager)
	if err != nil {
		return nil, fmt.Errorf("extract spec of %s %q owned by %q: %w", GVK.Kind, obj.GetName(), fieldManager, err)
	}
	if applied.Spec == nil {
		return nil, nil
	}
	return &applied.Spec.OperatorSpecApplyConfiguration, nil
}

// ExtractOperatorStatus returns the part of the CR's status.OperatorStatus that fieldManager
// owns through the status subresource. It returns nil when fieldManager owns nothing in the
// status.
func ExtractOperatorStatus(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorStatusApplyConfiguration, error) {
	cr, err := fromUnstructured(obj)
	if err != nil {
		return nil, err
	}
	applied, err := applyv1.ExtractLeaderWorkerSetOperatorStatus(cr, fieldManager)
	if err != nil {
		return nil, fmt.Errorf("extract status of %s %q owned by %q: %w", GVK.Kind, obj.GetName(), fieldManager, err)
	}
	if applied.Status == nil {
		return nil, nil
	}
	return &applied.Status.OperatorStatusApplyConfiguration, nil
}

func fromUnstructured(obj *unstructured.Unstructured) (*operatorv1.LeaderWorkerSetOperator, error) {
	if obj == nil {
		return nil, fmt.Errorf("no %s to extract from", GVK.Kind)
	}
	cr := &operatorv1.LeaderWorkerSetOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, cr); err != nil {
		return nil, fmt.Errorf("convert %s %q: %w", GVK.Kind, obj.GetName(), err)
	}
	return cr, nil
}
