package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
)

// 6. The LLM batch gateway at scale: many LLMBatchGateways spread over namespaces, with the
// LWS operand managed next to them.

const (
	scBatchScale = "6-batch-scale"

	// scaleLabel marks the scenario's namespaces and CRs.
	scaleLabel = "bench.llm-infra.io/scale"
	// scaleCRManifest is the CR every LLMBatchGateway of the scenario is made from: sync
	// dispatch, PostgreSQL, S3 file storage (no PVC), no optional API.
	scaleCRManifest = "test/golden/batch-gateway/batch_v1alpha1_llmbatchgateway_sync/cr.yaml"
)

var batchGVR = schema.GroupVersionResource{Group: batchv1alpha1.GroupName, Version: "v1alpha1", Resource: "llmbatchgateways"}

// credentialKeys are the keys of the credentials Secret of each namespace (fake values: kwok
// runs no container).
var credentialKeys = []string{"redis-url", "postgresql-url", "s3-secret-access-key"}

func scaleNamespace(i int) string { return fmt.Sprintf("bench-batch-%02d", i) }

// batchCR is one LLMBatchGateway of the scenario.
type batchCR struct {
	namespace, name string
	// candidates are the objects of every asset the operand has (batchgateway.Assets()),
	// named for this CR; rendered are those the operand made for it (they exist, controlled
	// by it, once it is Ready): its physical minimum of object writes.
	candidates, rendered []objRef
}

func (c *batchCR) key() string { return c.namespace + "/" + c.name }

// objectKey identifies an object across lists and audit events.
func objectKey(group, resource, namespace, name string) string {
	return group + "/" + resource + "/" + namespace + "/" + name
}

func (o objRef) key() string { return objectKey(o.gvr.Group, o.gvr.Resource, o.namespace, o.name) }

// auditObjectKey is the objectKey of an audit event's object ("" for a subresource or none).
func auditObjectKey(e *auditEvent) string {
	r := e.ObjectRef
	if r == nil || r.Subresource != "" {
		return ""
	}
	return objectKey(r.APIGroup, r.Resource, r.Namespace, r.Name)
}

// candidatesFor names every asset of the operand for a CR, as the operand does
// (batchgateway.NamesFor, the manifests' placeholders).
func candidatesFor(namespace, name string) ([]objRef, error) {
	names := batchgateway.NamesFor(name)
	r := engine.Renderer{Placeholders: map[string]string{
		bindata.NamespacePlaceholder:                      namespace,
		bindata.BatchGatewayInstancePlaceholder:           name,
		bindata.BatchGatewayAPIServerNamePlaceholder:      names.APIServer,
		bindata.BatchGatewayProcessorNamePlaceholder:      names.Processor,
		bindata.BatchGatewayGCNamePlaceholder:             names.GC,
		bindata.BatchGatewayAsyncProcessorNamePlaceholder: names.AsyncProcessor,
	}}
	var refs []objRef
	for _, asset := range batchgateway.Assets() {
		obj, err := r.Manifest(asset)
		if err != nil {
			return nil, err
		}
		refs = append(refs, refOf(asset, obj))
	}
	return refs, nil
}

// listedObject is what the bench keeps of an operand object from a list.
type listedObject struct {
	namespace       string
	resourceVersion string
	// controller is "<namespace>/<name>" of the LLMBatchGateway that controls it, if any.
	controller string
}

// listBatchObjects lists, in every namespace, the objects of each resource the operand may
// render that carry its part-of label. A resource whose CRD is not installed has none.
func (b *bench) listBatchObjects(ctx context.Context, gvrs []schema.GroupVersionResource) (map[string]listedObject, error) {
	out := map[string]listedObject{}
	selector := batchgateway.PartOfLabel + "=" + batchgateway.PartOfValue
	for _, gvr := range gvrs {
		list, err := b.dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvr.Resource, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			lo := listedObject{namespace: o.GetNamespace(), resourceVersion: o.GetResourceVersion()}
			if ref := metav1.GetControllerOfNoCopy(o); ref != nil && ref.Kind == "LLMBatchGateway" {
				lo.controller = o.GetNamespace() + "/" + ref.Name
			}
			out[objectKey(gvr.Group, gvr.Resource, o.GetNamespace(), o.GetName())] = lo
		}
	}
	return out, nil
}

// resourcesOf lists the distinct resources of refs.
func resourcesOf(crs []*batchCR, rendered bool) []schema.GroupVersionResource {
	seen := map[schema.GroupVersionResource]bool{}
	var out []schema.GroupVersionResource
	for _, c := range crs {
		refs := c.candidates
		if rendered {
			refs = c.rendered
		}
		for _, r := range refs {
			if !seen[r.gvr] {
				seen[r.gvr] = true
				out = append(out, r.gvr)
			}
		}
	}
	return out
}

// scaleSetup creates the namespaces, their credentials Secrets, and the CRs to create (not yet
// created).
func (b *bench) scaleSetup(ctx context.Context) ([]*batchCR, *unstructured.Unstructured, error) {
	objs, err := readManifests(filepath.Join(b.root, scaleCRManifest), nil)
	if err != nil {
		return nil, nil, err
	}
	if len(objs) != 1 {
		return nil, nil, fmt.Errorf("%s: want one object, got %d", scaleCRManifest, len(objs))
	}
	template := objs[0]
	unstructured.RemoveNestedField(template.Object, "metadata", "uid")
	unstructured.RemoveNestedField(template.Object, "metadata", "namespace")
	secretName, _, _ := unstructured.NestedString(template.Object, "spec", "secretRef", "name")
	if secretName == "" {
		return nil, nil, fmt.Errorf("%s: no spec.secretRef.name", scaleCRManifest)
	}

	if list, err := b.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: scaleLabel + "=true"}); err == nil && len(list.Items) > 0 {
		logf("namespaces of an earlier scale run exist: deleting them first")
		b.deleteNamespaces(scaleLabel + "=true")
	}
	data := map[string][]byte{}
	for _, k := range credentialKeys {
		data[k] = []byte("bench-fake-" + k)
	}
	for i := 0; i < b.scaleNS; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: scaleNamespace(i), Labels: map[string]string{scaleLabel: "true"}}}
		if _, err := b.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, nil, err
		}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: ns.Name}, Data: data}
		if _, err := b.kube.CoreV1().Secrets(ns.Name).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, nil, err
		}
	}
	crs := make([]*batchCR, 0, b.scaleCRs)
	for i := 0; i < b.scaleCRs; i++ {
		c := &batchCR{namespace: scaleNamespace(i % b.scaleNS), name: fmt.Sprintf("%s-%d", template.GetName(), i/b.scaleNS)}
		if c.candidates, err = candidatesFor(c.namespace, c.name); err != nil {
			return nil, nil, err
		}
		crs = append(crs, c)
	}
	return crs, template, nil
}

// createBatchCR creates one CR of the scenario from the template.
func (b *bench) createBatchCR(ctx context.Context, template *unstructured.Unstructured, c *batchCR) error {
	obj := template.DeepCopy()
	obj.SetName(c.name)
	obj.SetNamespace(c.namespace)
	obj.SetLabels(map[string]string{scaleLabel: "true"})
	_, err := b.dyn.Resource(batchGVR).Namespace(c.namespace).Create(ctx, obj, metav1.CreateOptions{FieldManager: fieldManager})
	if err != nil {
		return fmt.Errorf("create LLMBatchGateway %s: %w", c.key(), err)
	}
	return nil
}

// listBatchCRs lists the scenario's CRs in every namespace.
func (b *bench) listBatchCRs(ctx context.Context) ([]unstructured.Unstructured, error) {
	list, err := b.dyn.Resource(batchGVR).List(ctx, metav1.ListOptions{LabelSelector: scaleLabel + "=true"})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// waitBatchReady polls the CRs every 500ms until all n are Ready=True and returns when that
// was seen.
func (b *bench) waitBatchReady(ctx context.Context, n int, timeout time.Duration) (time.Time, error) {
	var seen time.Time
	var notReady map[string]int
	err := poll(ctx, 500*time.Millisecond, timeout, func() (bool, error) {
		crs, err := b.listBatchCRs(ctx)
		if err != nil {
			return false, nil
		}
		ready := 0
		notReady = map[string]int{}
		for i := range crs {
			if conditionStatus(&crs[i], batchv1alpha1.ConditionReady) == "True" {
				ready++
				continue
			}
			notReady[conditionReason(&crs[i], batchv1alpha1.ConditionReady)]++
		}
		if ready == n && len(crs) == n {
			seen = time.Now()
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		err = fmt.Errorf("not all %d LLMBatchGateways Ready (not ready, by reason: %v): %w", n, notReady, err)
	}
	return seen, err
}

func conditionReason(cr *unstructured.Unstructured, condType string) string {
	c := condition(cr, condType)
	if c == nil {
		return "(no condition)"
	}
	r, _ := c["reason"].(string)
	return r
}

// findRendered fills each CR's rendered objects: its candidates that exist, controlled by it.
func (b *bench) findRendered(ctx context.Context, crs []*batchCR) error {
	listed, err := b.listBatchObjects(ctx, resourcesOf(crs, false))
	if err != nil {
		return err
	}
	for _, c := range crs {
		c.rendered = nil
		for _, o := range c.candidates {
			if lo, ok := listed[o.key()]; ok && lo.controller == c.key() {
				c.rendered = append(c.rendered, o)
			}
		}
	}
	return nil
}

// objectVersions are the resourceVersions of every rendered object.
func (b *bench) objectVersions(ctx context.Context, crs []*batchCR) (map[string]string, error) {
	listed, err := b.listBatchObjects(ctx, resourcesOf(crs, true))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, c := range crs {
		for _, o := range c.rendered {
			out[o.key()] = listed[o.key()].resourceVersion
		}
	}
	return out, nil
}

func (b *bench) scenarioBatchScale(ctx context.Context) error {
	if err := b.ensureAvailable(ctx); err != nil {
		return err
	}
	logf("scenario 6: %d LLMBatchGateways in %d namespaces (LWS managed too)", b.scaleCRs, b.scaleNS)
	crs, template, err := b.scaleSetup(ctx)
	if err != nil {
		return err
	}
	defer b.deleteNamespaces(scaleLabel + "=true")
	sc := scBatchScale
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)

	// Convergence.
	stopRSS := b.sampleRSS()
	t0 := time.Now()
	if err := parallel(ctx, len(crs), b.loadConc, func(i int) error { return b.createBatchCR(ctx, template, crs[i]) }); err != nil {
		stopRSS()
		return err
	}
	tCreated := time.Now()
	logf("  %d CRs created in %.1fs; waiting for all Ready", len(crs), tCreated.Sub(t0).Seconds())
	tReady, err := b.waitBatchReady(ctx, len(crs), 15*time.Minute)
	rss := stopRSS()
	if err != nil {
		return err
	}
	logf("  all %d Ready after %.1fs", len(crs), tReady.Sub(t0).Seconds())
	quietAt, _ := b.waitOperatorQuiet(ctx, 3*time.Second, 2*time.Minute)
	if err := b.findRendered(ctx, crs); err != nil {
		return err
	}
	b.res.Add(sc, "CRs created -> all Ready", "s", "", "lower", secondsSince(t0, tReady)).Note =
		fmt.Sprintf("%d CRs created by the bench (%d in flight) in %.1fs; Ready polled every 500ms; includes the cluster's own work (ReplicaSets, %d pods through kwok)",
			len(crs), b.loadConc, tCreated.Sub(t0).Seconds(), 3*len(crs))
	if len(rss) > 0 {
		b.res.Add(sc, "RSS while converging: highest sample", "MiB", "< 150", "lower", slices.Max(rss)).Note =
			fmt.Sprintf("VmRSS every second from the first CR's creation until all were Ready (%d samples; median %.1f)", len(rss), median(rss))
	}
	perCR := make([]float64, 0, len(crs))
	for _, c := range crs {
		perCR = append(perCR, float64(len(c.rendered)))
	}
	b.addPeakRSS("peak RSS (VmHWM) after convergence")
	b.res.Add(sc, "operand objects rendered per CR", "objects", "", "", perCR...).Note =
		"the objects of batchgateway.Assets() named for the CR (NamesFor) that exist once it is Ready, controlled by it"
	if b.audit != nil {
		b.scaleWrites(crs, t0, tReady, quietAt)
	}

	if err := b.scaleResync(ctx, crs); err != nil {
		return err
	}
	b.addPeakRSS("peak RSS (VmHWM) after the forced resync")
	if err := b.scaleFootprint(ctx, len(crs)); err != nil {
		return err
	}
	return b.scaleDelete(ctx, crs)
}

// scaleWrites reports the operator's writes from the first CR's creation until all were Ready,
// against the physical minimum.
func (b *bench) scaleWrites(crs []*batchCR, t0, tReady, quietAt time.Time) {
	sc := scBatchScale
	objects := map[string]bool{}
	minimum := 0
	for _, c := range crs {
		for _, o := range c.rendered {
			objects[o.key()] = true
		}
		minimum += len(c.rendered) + 1
	}
	evs := b.operatorQuery(t0, tReady, nil)
	c := summarize(evs, t0)
	statusWrites := map[string]int{}
	var nObj, nStatus, nCR, nOther, nFailed int
	var lastObjectWrite time.Time
	var other []string
	for _, e := range evs {
		if e.class() != classWrite {
			continue
		}
		if !e.ok() {
			nFailed++
		}
		r := e.ObjectRef
		switch {
		case objects[auditObjectKey(e)]:
			nObj++
			if e.ok() && e.Verb != "delete" && e.Done.After(lastObjectWrite) {
				lastObjectWrite = e.Done
			}
		case r != nil && r.Resource == batchGVR.Resource && r.Subresource == "status":
			nStatus++
			statusWrites[r.Namespace+"/"+r.Name]++
		case r != nil && r.Resource == batchGVR.Resource:
			nCR++
		default:
			nOther++
			other = append(other, e.describe())
		}
	}
	perCR := make([]float64, 0, len(crs))
	spread := map[int]int{}
	for _, cr := range crs {
		perCR = append(perCR, float64(statusWrites[cr.key()]))
		spread[statusWrites[cr.key()]]++
	}
	tail := summarize(b.operatorQuery(tReady, quietAt, nil), tReady)
	logf("  %d writes until all Ready (%d operand objects, %d status, %d CR, %d other, %d failed), minimum %d; %d more until quiet; %d API reads",
		c.Writes, nObj, nStatus, nCR, nOther, nFailed, minimum, tail.Writes, c.APIReads)
	if !lastObjectWrite.IsZero() {
		b.res.Add(sc, "CRs created -> all operand objects applied", "s", "", "lower", secondsSince(t0, lastObjectWrite)).Note =
			"completion of the operator's last write of a rendered object (audit log)"
		applying := summarize(b.operatorQuery(t0, lastObjectWrite, nil), t0)
		b.res.Add(sc, "operator request rate until all objects applied (excl. leases)", "req/s", "", "",
			float64(applying.Total-applying.Leases)/lastObjectWrite.Sub(t0).Seconds()).Note =
			fmt.Sprintf("%d reads, %d writes, %d events; each of the operator's clients allows 50 req/s (burst 100): pkg/operator/starter.go withClientLimits",
				applying.Reads, applying.Writes, applying.Events)
	}
	b.res.Add(sc, "operator writes until all Ready (excl. events, leases)", "writes", fmt.Sprintf("= minimum (%d)", minimum), "lower", float64(c.Writes))
	b.res.Add(sc, "  physical minimum", "writes", "", "", float64(minimum)).Note =
		"per CR: one create per rendered object + 1 status write"
	b.res.Add(sc, "  of which operand-object writes", "writes", fmt.Sprint(len(objects)), "lower", float64(nObj))
	b.res.Add(sc, "  of which CR status writes", "writes", fmt.Sprint(len(crs)), "lower", float64(nStatus))
	b.res.Add(sc, "  CR status writes per CR", "writes", "1 (2 as conditions move from rolling out to Ready)", "lower", perCR...)
	b.res.Add(sc, "  of which CR metadata writes", "writes", "0 (no finalizer)", "lower", float64(nCR))
	b.res.Add(sc, "  of which other writes", "writes", "0", "lower", float64(nOther))
	b.res.Add(sc, "  of which failed (4xx/5xx)", "writes", "0", "lower", float64(nFailed))
	b.res.Add(sc, "writes after all Ready until quiet", "writes", "0", "lower", float64(tail.Writes))
	b.res.Add(sc, "operator API reads (get/list) until all Ready", "requests", fmt.Sprintf("<= %d (one per object created)", len(objects)), "lower", float64(c.APIReads)).Note =
		"a cache miss asks the API: an object about to be created is not in any informer yet"
	b.res.Add(sc, "events emitted until all Ready", "events", "", "", float64(c.Events))
	b.res.Details[sc+"/writesByKind"] = c.ByKind
	if c.Writes > minimum {
		keys := make([]int, 0, len(spread))
		for k := range spread {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		var dist []string
		for _, k := range keys {
			dist = append(dist, fmt.Sprintf("%d CRs x %d", spread[k], k))
		}
		var failedLines []string
		for _, e := range evs {
			if e.class() == classWrite && !e.ok() {
				failedLines = append(failedLines, fmt.Sprintf("+%.3fs %s", e.Received.Sub(t0).Seconds(), e.describe()))
			}
		}
		b.finding(fmt.Sprintf("batch scale: %d operator writes until all Ready, the physical minimum is %d: status writes per CR: %s; %d writes failed",
			c.Writes, minimum, strings.Join(dist, ", "), nFailed), failedLines)
	}
	if c.APIReads > len(objects) && len(crs) > 0 {
		first := map[string]bool{}
		for _, o := range crs[0].rendered {
			first[o.key()] = true
		}
		var lines []string
		for _, e := range evs {
			if first[auditObjectKey(e)] {
				lines = append(lines, fmt.Sprintf("+%.3fs %s", e.Received.Sub(t0).Seconds(), e.describe()))
			}
		}
		b.finding(fmt.Sprintf("batch scale: %d operator API reads (get/list) until all Ready for %d objects created: %.1f per object; the requests on the objects of %s:",
			c.APIReads, len(objects), float64(c.APIReads)/float64(len(objects)), crs[0].key()), lines)
	}
	if nOther > 0 {
		b.finding(fmt.Sprintf("batch scale: %d operator writes until all Ready that are neither a rendered object nor a CR", nOther), other)
	}
}

// scaleResync touches every CR once (an update event each, so one sync each) and reports what
// the syncs did.
func (b *bench) scaleResync(ctx context.Context, crs []*batchCR) error {
	sc := scBatchScale
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	rvs, err := b.objectVersions(ctx, crs)
	if err != nil {
		return err
	}
	before, err := b.syncStats(ctx, operandBatchGateway)
	if err != nil {
		return fmt.Errorf("the sync counter: %w", err)
	}
	logf("  forced resync: touching all %d CRs", len(crs))
	t0 := time.Now()
	err = parallel(ctx, len(crs), b.loadConc, func(i int) error {
		c := crs[i]
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"%d"}}}`, touchAnnotation, time.Now().UnixNano())
		_, err := b.dyn.Resource(batchGVR).Namespace(c.namespace).Patch(ctx, c.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("touch the CRs: %w", err)
	}
	after, reached, err := b.waitSyncs(ctx, operandBatchGateway, before, float64(len(crs)), 2*time.Second, 3*time.Minute)
	if err != nil {
		logf("  the sync counter did not count %d syncs: %v", len(crs), err)
	}
	t1 := time.Now()
	syncs, failed, meanDur := after.since(before)
	now, err := b.objectVersions(ctx, crs)
	if err != nil {
		return err
	}
	var changed []string
	for k, v := range rvs {
		if now[k] != v {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	b.res.Add(sc, fmt.Sprintf("forced resync of %d CRs: syncs counted", len(crs)), "syncs", fmt.Sprintf("%d (one per CR)", len(crs)), "", syncs).Note =
		syncsMetric + `{operand="batch-gateway"}, from before the first touch until it stayed put for 2s`
	b.res.Add(sc, "forced resync: failed syncs", "syncs", "0", "lower", failed)
	if !reached.IsZero() {
		b.res.Add(sc, "forced resync: first touch -> all syncs counted", "s", "", "lower", secondsSince(t0, reached)).Note =
			fmt.Sprintf("the bench patches an annotation on every CR, %d in flight; the counter is polled every 200ms", b.loadConc)
	}
	b.res.Add(sc, "forced resync: duration of a sync", "s", "", "lower", meanDur).Note =
		"mean: " + syncDurationMetric + ` {operand="batch-gateway"}, sum/count over the resync`
	b.res.Add(sc, "forced resync: operand objects changed", "objects", "0", "lower", float64(len(changed))).Note =
		"rendered objects whose resourceVersion moved"
	logf("  forced resync: %.0f syncs (%.0f failed), mean %.4fs; %d objects changed", syncs, failed, meanDur, len(changed))
	if b.audit == nil {
		return nil
	}
	evs := b.operatorQuery(t0, t1, nil)
	c := summarize(evs, t0)
	b.res.Add(sc, "forced resync: operator writes", "writes", "0", "lower", float64(c.Writes))
	b.res.Add(sc, "forced resync: operator API reads (get/list)", "requests", "0", "lower", float64(c.APIReads)).Note =
		"the operator's GET and LIST requests in the audit log from the first touch until the syncs were counted"
	b.res.Add(sc, "forced resync: events", "events", "0", "lower", float64(c.Events))
	logf("  forced resync: %d writes, %d API reads, %d events", c.Writes, c.APIReads, c.Events)
	if c.Writes > 0 {
		b.finding(fmt.Sprintf("batch scale: %d operator writes during a forced resync of %d CRs with nothing changed (goal 0): %s", c.Writes, len(crs), c.byKindString()), c.WriteLines)
	}
	if c.APIReads > 0 {
		b.finding(fmt.Sprintf("batch scale: %d operator API reads (get/list) during a forced resync of %d CRs with nothing changed (goal 0)", c.APIReads, len(crs)), c.APIReadLines)
	}
	return nil
}

// scaleFootprint measures the operator's memory with the CRs in place, then again after
// unrelated Secrets.
func (b *bench) scaleFootprint(ctx context.Context, n int) error {
	sc := scBatchScale
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	logf("  quiet window of %s with %d CRs", b.scaleQuiet, n)
	before, err := b.measureIdle(ctx, b.scaleQuiet)
	if err != nil {
		return err
	}
	b.res.Add(sc, fmt.Sprintf("RSS with LWS and %d CRs", n), "MiB", "< 150", "lower", before.rss...).Note =
		fmt.Sprintf("VmRSS of the operator process, every second over a quiet %s window", b.scaleQuiet)
	b.res.Add(sc, fmt.Sprintf("Go heap in use with LWS and %d CRs", n), "MiB", "", "lower", before.heap).Note =
		heapInUseMetric + " from the operator's /metrics at the end of the window"
	if b.audit != nil {
		d := before.to.Sub(before.from)
		b.res.Add(sc, fmt.Sprintf("idle with %d CRs: requests/min excl. leases, watch renewals", n), "req/min", "0", "lower", perMinute(before.c.Total-before.c.Leases-before.c.Watches, d)).Note =
			fmt.Sprintf("by class: %d reads (%d of them watches renewed), %d writes, %d events, %d reviews", before.c.Reads, before.c.Watches, before.c.Writes, before.c.Events, before.c.Reviews)
		b.res.Add(sc, fmt.Sprintf("idle with %d CRs: watch renewals/min", n), "req/min", "", "", perMinute(before.c.Watches, d)).Note =
			"every informer renews its watch every 5-10 minutes; one informer per referenced Secret (here one per namespace)"
	}

	load := objectLoad{prefix: "bench-scale-load", namespaces: 10, secrets: b.scaleSecrets}
	logf("  creating %d unrelated Secrets in %d namespaces", load.secrets, load.namespaces)
	t0 := time.Now()
	created, loadErr := b.createLoad(ctx, load)
	defer b.deleteNamespaces(load.selector())
	if loadErr != nil {
		return loadErr
	}
	if b.audit != nil {
		c := summarize(b.operatorQuery(t0, time.Now(), nil), t0)
		b.res.Add(sc, "load: operator requests excl. leases, watch renewals", "requests", "0", "lower", float64(c.Total-c.Leases-c.Watches)).Note =
			fmt.Sprintf("while %d unrelated Secrets were created in %d namespaces (in %s); %d watches renewed meanwhile",
				created, load.namespaces, time.Since(t0).Round(time.Second), c.Watches)
	}
	sleep(ctx, 5*time.Second)
	after, err := b.measureIdle(ctx, b.scaleQuiet)
	if err != nil {
		return err
	}
	b.res.Add(sc, fmt.Sprintf("RSS with LWS, %d CRs and %d unrelated Secrets", n, created), "MiB", "< 150", "lower", after.rss...)
	b.res.Add(sc, fmt.Sprintf("Go heap in use with LWS, %d CRs and %d unrelated Secrets", n, created), "MiB", "", "lower", after.heap)
	b.res.Add(sc, "heap growth from unrelated Secrets", "MiB", "~0 (Secrets are watched by label and one by one)", "", after.heap-before.heap)
	b.res.Add(sc, "RSS growth from unrelated Secrets (median after - median before)", "MiB", "~0", "", median(after.rss)-median(before.rss))
	logf("  RSS %.1f -> %.1f MiB, heap %.1f -> %.1f MiB, peak %.1f MiB", median(before.rss), median(after.rss), before.heap, after.heap, after.hwm)
	return nil
}

// scaleDelete deletes every CR and times garbage collection of the objects they owned.
func (b *bench) scaleDelete(ctx context.Context, crs []*batchCR) error {
	sc := scBatchScale
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	namespaces := map[string]bool{}
	for _, c := range crs {
		namespaces[c.namespace] = true
	}
	logf("  deleting the %d CRs", len(crs))
	t0 := time.Now()
	for ns := range namespaces {
		err := b.dyn.Resource(batchGVR).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: scaleLabel + "=true"})
		if err != nil {
			return fmt.Errorf("delete the LLMBatchGateways in %s: %w", ns, err)
		}
	}
	gvrs := resourcesOf(crs, true)
	left := 0
	err := poll(ctx, time.Second, 10*time.Minute, func() (bool, error) {
		listed, err := b.listBatchObjects(ctx, gvrs)
		if err != nil {
			return false, nil
		}
		left = 0
		for _, lo := range listed {
			if namespaces[lo.namespace] {
				left++
			}
		}
		remaining, err := b.listBatchCRs(ctx)
		return err == nil && left == 0 && len(remaining) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%d operand objects left after deleting the CRs: %w", left, err)
	}
	tGone := time.Now()
	b.res.Add(sc, "CRs deleted -> their objects garbage-collected", "s", "", "lower", secondsSince(t0, tGone)).Note =
		"the bench deletes the CRs (one deletecollection per namespace); the garbage collector deletes what they own; lists polled every second"
	if b.audit != nil {
		c := summarize(b.operatorQuery(t0, tGone, nil), t0)
		b.res.Add(sc, "deletion: operator writes", "writes", "0 (garbage collection does it)", "lower", float64(c.Writes))
	}
	return nil
}

// sampleRSS samples the operator's VmRSS (MiB) every second until the returned function is
// called; that returns the samples.
func (b *bench) sampleRSS() func() []float64 {
	done := make(chan struct{})
	out := make(chan []float64)
	go func() {
		var samples []float64
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				out <- samples
				return
			case <-tick.C:
				if rss, err := rssBytes(b.op.pid); err == nil {
					samples = append(samples, rss/(1<<20))
				}
			}
		}
	}()
	return func() []float64 {
		close(done)
		return <-out
	}
}

// addPeakRSS reports the operator's VmHWM, the highest RSS of its life so far (which began in
// scenario 5, when it was restarted), so that reading it after each step shows where it rose.
func (b *bench) addPeakRSS(name string) {
	hwm, err := procStatusKB(b.op.pid, "VmHWM:")
	if err != nil {
		logf("VmHWM: %v", err)
		return
	}
	b.res.Add(scBatchScale, name, "MiB", "< 150", "lower", hwm/1024).Note =
		"VmHWM of /proc/<pid>/status: the process's highest RSS so far (every earlier scenario since its last restart included)"
}
