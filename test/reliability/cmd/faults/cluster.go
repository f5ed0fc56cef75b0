package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// Objects other controllers make from the operator's (Pods and ReplicaSets of its
// Deployments, EndpointSlices of its Services, cert-manager's CertificateRequests of its
// Certificates, numbered by revision, ...) carry its labels too; they are not the operator's,
// and not compared.
var notTheOperators = map[string]bool{
	"pods": true, "replicasets.apps": true, "endpointslices.discovery.k8s.io": true, "endpoints": true,
	"controllerrevisions.apps": true, "events": true, "events.events.k8s.io": true, "componentstatuses": true,
	"certificaterequests.cert-manager.io": true, "orders.acme.cert-manager.io": true, "challenges.acme.cert-manager.io": true,
}

// snapshot is the operator's objects in the cluster: "resource.group namespace/name" -> its
// owners (kind/name) and labels, so two snapshots compare kinds, names, owner references and
// labels.
type snapshot map[string]string

// listable are the resources a snapshot lists: every resource the cluster serves with list.
func (s *suite) listable() ([]schema.GroupVersionResource, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(s.admin)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, err
	}
	var out []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || !contains(r.Verbs, "list") {
				continue
			}
			gvr := gv.WithResource(r.Name)
			if notTheOperators[resourceKey(gvr)] {
				continue
			}
			out = append(out, gvr)
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func resourceKey(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}

// take lists every object of the operator (its managed-by label) in the cluster.
func (s *suite) take(ctx context.Context) (snapshot, error) {
	kinds, err := s.listable()
	if err != nil {
		return nil, err
	}
	snap := snapshot{}
	for _, gvr := range kinds {
		list, err := s.dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: engine.ManagedBySelector()})
		if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsForbidden(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", resourceKey(gvr), err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			if o.GetGenerateName() != "" {
				continue
			}
			snap[objectKey(gvr, o.GetNamespace(), o.GetName())] = describeObject(o)
		}
	}
	return snap, nil
}

func objectKey(gvr schema.GroupVersionResource, namespace, name string) string {
	if namespace == "" {
		return resourceKey(gvr) + " " + name
	}
	return resourceKey(gvr) + " " + namespace + "/" + name
}

// describeObject is what a snapshot compares of an object: owners (kind/name, controller) and
// labels, both sorted. UIDs differ between runs; names do not.
func describeObject(o *unstructured.Unstructured) string {
	var owners []string
	for _, r := range o.GetOwnerReferences() {
		c := ""
		if r.Controller != nil && *r.Controller {
			c = "*"
		}
		owners = append(owners, r.Kind+"/"+r.Name+c)
	}
	sort.Strings(owners)
	var labels []string
	for k, v := range o.GetLabels() {
		labels = append(labels, k+"="+v)
	}
	sort.Strings(labels)
	return "owners[" + strings.Join(owners, ",") + "] labels[" + strings.Join(labels, ",") + "]"
}

// diff says how got differs from want, one line per object.
func diff(want, got snapshot) []string {
	var out []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			out = append(out, "missing "+k)
		case g != w:
			out = append(out, fmt.Sprintf("%s: %s, want %s", k, g, w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, "extra "+k+" "+got[k])
		}
	}
	sort.Strings(out)
	return out
}

// unlabelled are the objects the operator created since `since` (audit log) that exist but
// are not in snap: objects without its label, which its informers and its removal would never
// see again.
func (s *suite) unlabelled(ctx context.Context, since time.Time, snap snapshot) []string {
	creates := s.audit.Query(s.user, since, time.Now().Add(time.Hour), func(e *live.AuditEvent) bool {
		return e.Verb == "create" && e.Class() == live.ClassWrite && e.OK() && e.ObjectRef != nil &&
			e.ObjectRef.Name != "" && e.ObjectRef.Subresource == ""
	})
	seen := map[string]bool{}
	var out []string
	for _, e := range creates {
		r := e.ObjectRef
		gvr := schema.GroupVersionResource{Group: r.APIGroup, Version: r.APIVersion, Resource: r.Resource}
		key := objectKey(gvr, r.Namespace, r.Name)
		if seen[key] || notTheOperators[resourceKey(gvr)] {
			continue
		}
		seen[key] = true
		if _, ok := snap[key]; ok {
			continue
		}
		var err error
		if r.Namespace == "" {
			_, err = s.dyn.Resource(gvr).Get(ctx, r.Name, metav1.GetOptions{})
		} else {
			_, err = s.dyn.Resource(gvr).Namespace(r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		}
		if err == nil {
			out = append(out, key+" (created by the operator, without its label)")
		}
	}
	return out
}

// settle waits until the snapshot equals want (and ready, when given, holds) and stays equal
// for two consecutive looks; it returns when that was first seen, or the difference at the
// timeout.
func (s *suite) settle(ctx context.Context, want snapshot, ready func(context.Context) (bool, error), timeout time.Duration) (time.Time, []string, error) {
	var at time.Time
	var last []string
	err := live.Poll(ctx, time.Second, timeout, func() (bool, error) {
		if ready != nil {
			ok, err := ready(ctx)
			if err != nil && strings.Contains(err.Error(), "exited") {
				return false, err
			}
			if err != nil || !ok {
				last = []string{"not ready yet"}
				if err != nil {
					last = []string{err.Error()}
				}
				at = time.Time{}
				return false, nil
			}
		}
		snap, err := s.take(ctx)
		if err != nil {
			last = []string{err.Error()}
			return false, nil
		}
		last = diff(want, snap)
		if len(last) > 0 {
			at = time.Time{}
			return false, nil
		}
		if at.IsZero() {
			at = time.Now()
			return false, nil
		}
		return true, nil
	})
	return at, last, err
}

// condition is the status of a condition of an object's status.conditions ("" when unset).
func condition(obj *unstructured.Unstructured, condType string) (status, reason, message string) {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == condType {
			status, _ = m["status"].(string)
			reason, _ = m["reason"].(string)
			message, _ = m["message"].(string)
		}
	}
	return
}
