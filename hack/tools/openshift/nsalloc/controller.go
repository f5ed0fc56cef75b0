// Package nsalloc gives every namespace the UID range, supplemental groups and SELinux level that
// OpenShift's cluster-policy-controller (its namespace-security-allocation-controller) gives it:
// the annotations openshift.io/sa.scc.uid-range, openshift.io/sa.scc.supplemental-groups and
// openshift.io/sa.scc.mcs, which the SCC strategies MustRunAsRange and MustRunAs read.
//
// As there: the next free block of the UID range (library-go's uid.Range), the same block as the
// supplemental groups, and the MCS label at the block's offset times the labels per project; an
// existing uid-range annotation is kept, an existing mcs annotation too. Unlike there, the
// allocation is not kept in a RangeAllocation object: this controller is the only allocator of
// its cluster, so the blocks the namespaces carry, read when it starts (what
// cluster-policy-controller's Repair reads too), are the whole state.
package nsalloc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	securityv1 "github.com/openshift/api/security/v1"
	"github.com/openshift/library-go/pkg/security/uid"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// OpenShift's defaults (cluster-policy-controller's SecurityAllocator configuration).
const (
	DefaultUIDRange            = "1000000000-1999999999/10000"
	DefaultMCSRange            = "s0:/2"
	DefaultMCSLabelsPerProject = 5
)

// Controller annotates namespaces.
type Controller struct {
	namespaces corev1client.NamespaceInterface
	lister     corev1listers.NamespaceLister
	informer   cache.SharedIndexInformer
	uids       *uid.Range
	mcsPrefix  string
	mcsK       int
	perProject uint64
	queue      workqueue.TypedRateLimitingInterface[string]

	mu   sync.Mutex
	used map[uint32]bool // block offsets in uids that some namespace holds
}

// New builds the controller on a namespace informer; uidRange and mcsRange in OpenShift's forms
// (DefaultUIDRange, DefaultMCSRange).
func New(informer corev1informers.NamespaceInformer, namespaces corev1client.NamespaceInterface, uidRange, mcsRange string, labelsPerProject int) (*Controller, error) {
	uids, err := uid.ParseRange(uidRange)
	if err != nil {
		return nil, fmt.Errorf("UID range: %w", err)
	}
	prefix, k, err := parseMCSRange(mcsRange)
	if err != nil {
		return nil, err
	}
	if labelsPerProject < 1 {
		return nil, fmt.Errorf("MCS labels per project must be positive, not %d", labelsPerProject)
	}
	// Every block must have a label of its own, as OpenShift's configuration validation demands.
	if need := uint64(uids.Size()) * uint64(labelsPerProject); need > mcsRangeSize(k) {
		return nil, fmt.Errorf("the MCS range %s has %d labels, the UID range %s needs %d", mcsRange, mcsRangeSize(k), uidRange, need)
	}
	return &Controller{
		namespaces: namespaces,
		lister:     informer.Lister(),
		informer:   informer.Informer(),
		uids:       uids,
		mcsPrefix:  prefix,
		mcsK:       k,
		perProject: uint64(labelsPerProject),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "namespace-security-allocation"}),
		used: map[uint32]bool{},
	}, nil
}

// Start reads the blocks already given (the informer must have synced), then annotates every
// namespace without a UID range, now and as they come, until ctx ends.
func (c *Controller) Start(ctx context.Context) error {
	if err := c.repair(); err != nil {
		return err
	}
	if _, err := c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	}); err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	go func() {
		for c.next(ctx) {
		}
	}()
	return nil
}

func (c *Controller) enqueue(obj any) {
	if ns, ok := obj.(*corev1.Namespace); ok {
		c.queue.Add(ns.Name)
	}
}

// repair marks the blocks the namespaces hold: after a restart nothing is handed out twice.
func (c *Controller) repair() error {
	list, err := c.lister.List(labels.Everything())
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ns := range list {
		c.markLocked(ns)
	}
	return nil
}

// markLocked records the block ns holds, if any and in the range (OpenShift too ignores a block
// outside its range, or one that is not a block).
func (c *Controller) markLocked(ns *corev1.Namespace) bool {
	value, ok := ns.Annotations[securityv1.UIDRangeAnnotation]
	if !ok {
		return false
	}
	if block, err := uid.ParseBlock(value); err == nil {
		if in, offset := c.uids.Offset(block); in {
			c.used[offset] = true
		}
	}
	return true
}

func (c *Controller) next(ctx context.Context) bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(ctx, key); err != nil {
		utilruntime.HandleError(fmt.Errorf("namespace %s: %w", key, err))
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *Controller) sync(ctx context.Context, name string) error {
	ns, err := c.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	c.mu.Lock()
	annotated := c.markLocked(ns)
	c.mu.Unlock()
	if annotated {
		return nil
	}
	offset, err := c.take()
	if err != nil {
		return err
	}
	annotations := c.annotations(offset, ns.Annotations)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	// A patch of the annotations alone: it races with no other writer of the namespace.
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err = c.namespaces.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "namespace-security-allocation-controller"})
	if err != nil {
		c.release(offset)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("annotate: %w", err)
	}
	klog.V(2).InfoS("namespace annotated", "namespace", name, "annotations", annotations)
	return nil
}

// annotations are what a namespace gets for the block at offset; an MCS level it has is kept.
func (c *Controller) annotations(offset uint32, existing map[string]string) map[string]string {
	block, _ := c.uids.BlockAt(offset)
	out := map[string]string{
		securityv1.UIDRangeAnnotation:           block.String(),
		securityv1.SupplementalGroupsAnnotation: block.String(),
	}
	if _, ok := existing[securityv1.MCSAnnotation]; !ok {
		out[securityv1.MCSAnnotation] = mcsLabel(c.mcsPrefix, c.mcsK, uint64(offset)*c.perProject)
	}
	return out
}

// take reserves the lowest free block, as OpenShift's allocator does.
func (c *Controller) take() (uint32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := uint32(0); i < c.uids.Size(); i++ {
		if !c.used[i] {
			c.used[i] = true
			return i, nil
		}
	}
	return 0, fmt.Errorf("the UID range %s is full", c.uids)
}

func (c *Controller) release(offset uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.used, offset)
}
