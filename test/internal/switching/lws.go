// Package switching holds what the switch from openshift/lws-operator needs in more than one
// suite: make test-switching (test/upgrade, simulated pods) and the switch under load
// (test/operands, real pods). Both put on the cluster what openshift/lws-operator makes for
// LeaderWorkerSetOperator `cluster` (test/upgrade/testdata/switching/lws-operator) and follow
// README.md's section LWSReadmeSection: step 1 (DetachLWSCRDs) before this operator starts,
// step 4 (DeleteLWSUpstream) once it serves.
package switching

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// The switch from openshift/lws-operator, as README.md's section says it.
const (
	LWSReadmeSection     = "Switching from openshift/lws-operator"
	LWSUpstreamNamespace = "openshift-lws-operator"
	LWSControllerName    = "lws-controller-manager"
	LWSWebhookService    = "lws-webhook-service"
	LWSCRDName           = "leaderworkersets.leaderworkerset.x-k8s.io"
	// LWSOperatorTestdata: what openshift/lws-operator makes for `cluster` (cr.yaml,
	// objects.yaml; its README.md says how it was rendered), from the repository's root.
	LWSOperatorTestdata = "test/upgrade/testdata/switching/lws-operator"
)

// LWSCRDs are the CRDs openshift/lws-operator installs and this operator adopts; step 1
// detaches them all from the CR.
var LWSCRDs = []string{LWSCRDName, "disaggregatedsets.disaggregatedset.x-k8s.io", "disaggregatedsetrolescalers.disaggregatedset.x-k8s.io"}

// CRDs is the resource of CustomResourceDefinitions.
var CRDs = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ReadObjects decodes a file of upstream objects (an objects.yaml), CRDs first, so that an
// upstream operator's own kinds exist before anything else is created.
func ReadObjects(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	decoder := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := decoder.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
		}
		if len(u.Object) != 0 {
			objs = append(objs, u)
		}
	}
	sort.SliceStable(objs, func(i, j int) bool {
		return objs[i].GetKind() == "CustomResourceDefinition" && objs[j].GetKind() != "CustomResourceDefinition"
	})
	return objs, nil
}

// OwnedBy points every owner reference of u at the CR of that UID (the testdata has a fixed
// one: the CR the suite made has its own).
func OwnedBy(u *unstructured.Unstructured, owner types.UID) {
	refs := u.GetOwnerReferences()
	for i := range refs {
		refs[i].UID = owner
	}
	u.SetOwnerReferences(refs)
}

// DetachLWSCRDs is the README's step 1: the JSON patch it gives, on each of the three CRDs, so
// that deleting upstream's CR does not delete them and every LeaderWorkerSet with them.
func DetachLWSCRDs(ctx context.Context, dyn dynamic.Interface) error {
	patch := []byte(`[{"op":"remove","path":"/metadata/ownerReferences"}]`)
	for _, name := range LWSCRDs {
		if _, err := dyn.Resource(CRDs).Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("step 1, CRD %s: %w", name, err)
		}
	}
	return nil
}

// DeleteLWSUpstream is the README's step 4: the old controller's Deployment, then its
// namespace, deleted; returns once the namespace is gone (within timeout).
func DeleteLWSUpstream(ctx context.Context, kube kubernetes.Interface, poll, timeout time.Duration) error {
	background := metav1.DeletePropagationBackground
	if err := kube.AppsV1().Deployments(LWSUpstreamNamespace).Delete(ctx, LWSControllerName, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		return fmt.Errorf("step 4, delete the old controller: %w", err)
	}
	if err := kube.CoreV1().Namespaces().Delete(ctx, LWSUpstreamNamespace, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("step 4, delete namespace %s: %w", LWSUpstreamNamespace, err)
	}
	err := wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, LWSUpstreamNamespace, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("step 4: namespace %s not gone within %s", LWSUpstreamNamespace, timeout)
	}
	return nil
}
