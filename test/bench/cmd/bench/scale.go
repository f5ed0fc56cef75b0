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

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// The scale scenarios (6 and 7): many CRs of one or more operands spread over namespaces, with
// the LWS operand managed next to them. The kinds are described in scale_kinds.go; this file
// creates, waits, counts and deletes whatever kinds a scenario names.

// scaleLabel marks the scale scenarios' namespaces and CRs.
const scaleLabel = "bench.llm-infra.io/scale"

// scaleKind describes one operand's custom resource for the scale scenarios: the CR the bench
// makes every instance from, the condition that says an instance converged, and how the
// operand names and labels what it renders for an instance.
type scaleKind struct {
	// kind is the CR's kind, gvr its resource.
	kind string
	gvr  schema.GroupVersionResource
	// operand is the operand label of the operator's sync metrics.
	operand string
	// manifest is the CR every instance is made from (relative to the repository).
	manifest string
	// condition is the status condition that is True once an instance converged.
	condition string
	// partOf selects every object the operand renders (a label selector).
	partOf string
	// secrets are the Secrets the template references that each namespace needs (fake values:
	// kwok runs no container).
	secrets func(template *unstructured.Unstructured) ([]*corev1.Secret, error)
	// candidates names every asset of the operand for an instance (the template named name in
	// namespace), as the operand names it.
	candidates func(template *unstructured.Unstructured) ([]objRef, error)

	// template is the manifest, loaded.
	template *unstructured.Unstructured

	// For a kind watched for convergence only (the anchors' Gateways' Deployments): unlabeled
	// says its objects lack the scale label (all in the scenario's namespaces are watched);
	// converged, when set, replaces the condition check.
	unlabeled bool
	converged func(*unstructured.Unstructured) bool
}

// isConverged says whether one object of the kind has converged.
func (k *scaleKind) isConverged(obj *unstructured.Unstructured) bool {
	if k.converged != nil {
		return k.converged(obj)
	}
	return conditionStatus(obj, k.condition) == "True"
}

// plural is the kind's name for many of them, in metric names.
func (k *scaleKind) plural() string { return k.kind + "s" }

// scaleCR is one CR of a scale scenario.
type scaleCR struct {
	kind            *scaleKind
	namespace, name string
	// candidates are the objects of every asset the operand has, named for this CR; rendered
	// are those the operand made for it (they exist, controlled by it, once it converged): its
	// physical minimum of object writes.
	candidates, rendered []objRef
}

func (c *scaleCR) key() string { return c.namespace + "/" + c.name }

// scaleScenario is one run of a scale scenario: what it creates and what it measures.
type scaleScenario struct {
	// sc is the scenario's id in the results.
	sc string
	// namespacePrefix names its namespaces: <prefix>-00, -01, ...
	namespacePrefix string
	namespaces      int
	// kinds and counts: counts[i] CRs of kinds[i], spread over the namespaces.
	kinds  []*scaleKind
	counts []int
	// resync are the kinds whose CRs are all touched in the forced resync.
	resync []*scaleKind
	// loadSecrets unrelated Secrets are created in the footprint step (none: no load).
	loadSecrets int

	crs []*scaleCR
}

func (s *scaleScenario) namespace(i int) string {
	return fmt.Sprintf("%s-%02d", s.namespacePrefix, i%s.namespaces)
}

// single says whether the scenario has one kind; its metric names then say "CRs", as scenario
// 6's always have.
func (s *scaleScenario) single() bool { return len(s.kinds) == 1 }

// name is a metric name about one kind: "<what>" for a single-kind scenario, "<Kind>: <what>"
// otherwise.
func (s *scaleScenario) name(k *scaleKind, what string) string {
	if s.single() {
		return what
	}
	return k.kind + ": " + what
}

func (s *scaleScenario) crsOf(k *scaleKind) []*scaleCR {
	var out []*scaleCR
	for _, c := range s.crs {
		if c.kind == k {
			out = append(out, c)
		}
	}
	return out
}

// population says what the scenario holds, for metric names: "200 CRs" for one kind,
// "200 LLMBatchGateways and 200 Gateways" for more.
func (s *scaleScenario) population() string {
	if s.single() {
		return fmt.Sprintf("%d CRs", s.counts[0])
	}
	parts := make([]string, len(s.kinds))
	for i, k := range s.kinds {
		parts[i] = fmt.Sprintf("%d %s", s.counts[i], k.plural())
	}
	return strings.Join(parts, " and ")
}

func (s *scaleScenario) kindByResource(group, resource string) *scaleKind {
	for _, k := range s.kinds {
		if k.gvr.Group == group && k.gvr.Resource == resource {
			return k
		}
	}
	return nil
}

// objectKey identifies an object across lists and audit events.
func objectKey(group, resource, namespace, name string) string {
	return group + "/" + resource + "/" + namespace + "/" + name
}

func (o objRef) key() string { return objectKey(o.gvr.Group, o.gvr.Resource, o.namespace, o.name) }

// auditObjectKey is the objectKey of an audit event's object ("" for a subresource or none).
func auditObjectKey(e *live.AuditEvent) string {
	r := e.ObjectRef
	if r == nil || r.Subresource != "" {
		return ""
	}
	return objectKey(r.APIGroup, r.Resource, r.Namespace, r.Name)
}

// instance is the kind's template named name in namespace.
func (k *scaleKind) instance(namespace, name string) *unstructured.Unstructured {
	obj := k.template.DeepCopy()
	obj.SetName(name)
	obj.SetNamespace(namespace)
	obj.SetLabels(map[string]string{scaleLabel: "true"})
	return obj
}

// load reads the kind's template CR.
func (k *scaleKind) load(root string) error {
	objs, err := readManifests(filepath.Join(root, k.manifest), nil)
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return fmt.Errorf("%s: want one object, got %d", k.manifest, len(objs))
	}
	t := objs[0]
	unstructured.RemoveNestedField(t.Object, "metadata", "uid")
	unstructured.RemoveNestedField(t.Object, "metadata", "namespace")
	k.template = t
	return nil
}

// listedObject is what the bench keeps of an operand object from a list.
type listedObject struct {
	namespace       string
	resourceVersion string
	// controller is "<namespace>/<name>" of the CR of the kind that controls it, if any.
	controller string
}

// listObjects lists, in every namespace, the objects of each resource the kind's operand may
// render that carry its part-of label. A resource whose CRD is not installed has none.
func (b *bench) listObjects(ctx context.Context, k *scaleKind, gvrs []schema.GroupVersionResource) (map[string]listedObject, error) {
	out := map[string]listedObject{}
	for _, gvr := range gvrs {
		list, err := b.dyn.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: k.partOf})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvr.Resource, err)
		}
		for i := range list.Items {
			o := &list.Items[i]
			lo := listedObject{namespace: o.GetNamespace(), resourceVersion: o.GetResourceVersion()}
			if ref := metav1.GetControllerOfNoCopy(o); ref != nil && ref.Kind == k.kind && strings.HasPrefix(ref.APIVersion, k.gvr.Group+"/") {
				lo.controller = o.GetNamespace() + "/" + ref.Name
			}
			out[objectKey(gvr.Group, gvr.Resource, o.GetNamespace(), o.GetName())] = lo
		}
	}
	return out, nil
}

// resourcesOf lists the distinct resources of the CRs' candidates (or rendered objects).
func resourcesOf(crs []*scaleCR, rendered bool) []schema.GroupVersionResource {
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

// setup loads the templates, creates the namespaces with the Secrets every kind's template
// references, and names the CRs to create (not yet created), the kinds interleaved.
func (b *bench) scaleSetup(ctx context.Context, s *scaleScenario) error {
	var secrets []*corev1.Secret
	for _, k := range s.kinds {
		if err := k.load(b.root); err != nil {
			return err
		}
		ss, err := k.secrets(k.template)
		if err != nil {
			return fmt.Errorf("%s: %w", k.manifest, err)
		}
		secrets = append(secrets, ss...)
	}
	if list, err := b.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: scaleLabel + "=true"}); err == nil && len(list.Items) > 0 {
		logf("namespaces of an earlier scale run exist: deleting them first")
		b.deleteNamespaces(scaleLabel + "=true")
	}
	for i := 0; i < s.namespaces; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.namespace(i), Labels: map[string]string{scaleLabel: "true"}}}
		if _, err := b.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		for _, secret := range secrets {
			secret = secret.DeepCopy()
			secret.Namespace = ns.Name
			if _, err := b.kube.CoreV1().Secrets(ns.Name).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
	}
	most := slices.Max(s.counts)
	for i := 0; i < most; i++ {
		for j, k := range s.kinds {
			if i >= s.counts[j] {
				continue
			}
			c := &scaleCR{kind: k, namespace: s.namespace(i), name: fmt.Sprintf("%s-%d", k.template.GetName(), i/s.namespaces)}
			var err error
			if c.candidates, err = k.candidates(k.instance(c.namespace, c.name)); err != nil {
				return err
			}
			s.crs = append(s.crs, c)
		}
	}
	return nil
}

// createScaleCR creates one CR of the scenario from its kind's template.
func (b *bench) createScaleCR(ctx context.Context, c *scaleCR) error {
	_, err := b.dyn.Resource(c.kind.gvr).Namespace(c.namespace).Create(ctx, c.kind.instance(c.namespace, c.name), metav1.CreateOptions{FieldManager: fieldManager})
	if err != nil {
		return fmt.Errorf("create %s %s: %w", c.kind.kind, c.key(), err)
	}
	return nil
}

// listScaleCRs lists a kind's CRs of the scale scenarios in every namespace.
func (b *bench) listScaleCRs(ctx context.Context, k *scaleKind) ([]unstructured.Unstructured, error) {
	list, err := b.dyn.Resource(k.gvr).List(ctx, metav1.ListOptions{LabelSelector: scaleLabel + "=true"})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// podsNotRunning counts the pods of the scenario's namespaces that are not Running, by phase
// (Pending with the fake nodes full means NODE_MAX_PODS is too small).
func (b *bench) podsNotRunning(ctx context.Context, s *scaleScenario) string {
	phases := map[corev1.PodPhase]int{}
	for i := 0; i < s.namespaces; i++ {
		pods, err := b.kube.CoreV1().Pods(s.namespace(i)).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err.Error()
		}
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodRunning {
				phases[p.Status.Phase]++
			}
		}
	}
	return fmt.Sprint(phases)
}

// countPods counts the pods of the scenario's namespaces.
func (b *bench) countPods(ctx context.Context, s *scaleScenario) int {
	n := 0
	for i := 0; i < s.namespaces; i++ {
		if pods, err := b.kube.CoreV1().Pods(s.namespace(i)).List(ctx, metav1.ListOptions{}); err == nil {
			n += len(pods.Items)
		}
	}
	return n
}

// podCapacity is the number of pods the schedulable nodes (no NoSchedule taint) still take.
func (b *bench) podCapacity(ctx context.Context) (int, error) {
	nodes, err := b.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	total := 0
	schedulable := map[string]bool{}
	for _, n := range nodes.Items {
		if n.Spec.Unschedulable || slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectNoSchedule }) {
			continue
		}
		schedulable[n.Name] = true
		total += int(n.Status.Allocatable.Pods().Value())
	}
	pods, err := b.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	for _, p := range pods.Items {
		if schedulable[p.Spec.NodeName] && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			total--
		}
	}
	return total, nil
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
func (b *bench) findRendered(ctx context.Context, s *scaleScenario) error {
	for _, k := range s.kinds {
		crs := s.crsOf(k)
		listed, err := b.listObjects(ctx, k, resourcesOf(crs, false))
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
	}
	return nil
}

// objectVersions are the resourceVersions of every rendered object of the CRs (all of one kind).
func (b *bench) objectVersions(ctx context.Context, k *scaleKind, crs []*scaleCR) (map[string]string, error) {
	listed, err := b.listObjects(ctx, k, resourcesOf(crs, true))
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

// runScale runs a scale scenario: convergence, forced resync, footprint, deletion.
func (b *bench) runScale(ctx context.Context, s *scaleScenario) error {
	if err := b.ensureAvailable(ctx); err != nil {
		return err
	}
	if err := b.scaleSetup(ctx, s); err != nil {
		return err
	}
	defer b.deleteNamespaces(scaleLabel + "=true")
	sc := s.sc
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	capacity, err := b.podCapacity(ctx)
	if err != nil {
		return err
	}
	logf("  room for %d more pods on the schedulable nodes (NODE_MAX_PODS each)", capacity)

	// Convergence.
	tracker, stopWatch, err := b.watchConverged(ctx, s)
	if err != nil {
		return err
	}
	defer stopWatch()
	timeout := convergeTimeout(len(s.crs), b.convergeMinutes, b.convergePerCR)
	rssBefore, _ := live.RSSBytes(b.op.Pid)
	stopRSS := b.sampleRSS()
	cpu0, cpuErr := live.CPUSeconds(b.op.Pid)
	t0 := time.Now()
	if err := parallel(ctx, len(s.crs), b.loadConc, func(i int) error { return b.createScaleCR(ctx, s.crs[i]) }); err != nil {
		stopRSS()
		return err
	}
	tCreated := time.Now()
	logf("  %d CRs created in %.1fs; waiting (informers, up to %s) until all converged", len(s.crs), tCreated.Sub(t0).Seconds(), timeout)
	converged, err := b.waitConverged(ctx, s, tracker, timeout)
	rss := stopRSS()
	if err != nil {
		b.scaleUnconverged(ctx, s, t0, rss, cpu0)
		return err
	}
	stopWatch()
	var tDone time.Time
	for _, t := range converged {
		if t.After(tDone) {
			tDone = t
		}
	}
	logf("  all %d converged after %.1fs", len(s.crs), tDone.Sub(t0).Seconds())
	if cpu1, err := live.CPUSeconds(b.op.Pid); err == nil && cpuErr == nil {
		b.res.Add(sc, "operator CPU from the first CR's creation until all converged", "CPU-s", "", "lower", cpu1-cpu0).Note =
			"utime+stime of the operator process (/proc/<pid>/stat), read when the last kind was seen converged"
		b.res.Add(sc, "operator CPU per CR until all converged", "CPU-ms", "flat or falling with scale", "lower", 1000*(cpu1-cpu0)/float64(len(s.crs)))
	}
	b.res.Add(sc, "RSS before the first CR", "MiB", "", "lower", rssBefore/(1<<20)).Note =
		"VmRSS of the operator process just before the bench created the CRs"
	quietAt, _ := b.waitOperatorQuiet(ctx, 3*time.Second, 2*time.Minute)
	b.openWatches(sc, quietAt)
	b.heapTop(ctx, sc)
	if err := b.findRendered(ctx, s); err != nil {
		return err
	}
	pods := b.countPods(ctx, s)
	for _, k := range s.kinds {
		what := "CRs created -> all Ready"
		if !s.single() {
			what = fmt.Sprintf("CRs created -> all %s %s", k.plural(), k.condition)
		}
		created := s.population()
		if !s.single() {
			created = fmt.Sprintf("%d CRs (%s)", len(s.crs), created)
		}
		b.res.Add(sc, what, "s", "", "lower", secondsSince(t0, converged[k])).Note =
			fmt.Sprintf("%s created by the bench (%d in flight) in %.1fs; %s watched (an informer per kind); includes the cluster's own work (ReplicaSets, %d pods in the scenario's namespaces through kwok, room for %d before)",
				created, b.loadConc, tCreated.Sub(t0).Seconds(), k.condition, pods, capacity)
	}
	if len(rss) > 0 {
		b.res.Add(sc, "RSS while converging: highest sample", "MiB", "< 150", "lower", slices.Max(rss)).Note =
			fmt.Sprintf("VmRSS every second from the first CR's creation until all converged (%d samples; median %.1f)", len(rss), median(rss))
	}
	b.addPeakRSS(sc, "peak RSS (VmHWM) after convergence")
	for _, k := range s.kinds {
		crs := s.crsOf(k)
		perCR := make([]float64, 0, len(crs))
		for _, c := range crs {
			perCR = append(perCR, float64(len(c.rendered)))
		}
		b.res.Add(sc, s.name(k, "operand objects rendered per CR"), "objects", "", "", perCR...).Note =
			fmt.Sprintf("the objects of the operand's asset list named for the CR (%s) that exist once it is %s, controlled by it%s",
				k.manifest, k.condition, renderedSummary(crs))
	}
	if b.audit != nil {
		b.scaleWrites(s, t0, tDone, quietAt)
	}

	for _, k := range s.resync {
		if err := b.scaleResync(ctx, s, k); err != nil {
			return err
		}
	}
	b.addPeakRSS(sc, "peak RSS (VmHWM) after the forced resync")
	if err := b.scaleFootprint(ctx, s); err != nil {
		return err
	}
	return b.scaleDelete(ctx, s)
}

// renderedSummary says which kinds the first CR's rendered objects are, e.g. " (ServiceAccount
// x3, ConfigMap x3, ...)".
func renderedSummary(crs []*scaleCR) string {
	if len(crs) == 0 {
		return ""
	}
	var order []string
	n := map[string]int{}
	for _, o := range crs[0].rendered {
		if n[o.kind] == 0 {
			order = append(order, o.kind)
		}
		n[o.kind]++
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s x%d", k, n[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// scaleWrites reports the operator's writes from the first CR's creation until all converged,
// against the physical minimum: one create per rendered object and one status write per CR.
func (b *bench) scaleWrites(s *scaleScenario, t0, tDone, quietAt time.Time) {
	sc := s.sc
	objects := map[string]bool{}
	objectsOf := map[*scaleKind]int{}
	minimum := 0
	for _, c := range s.crs {
		for _, o := range c.rendered {
			objects[o.key()] = true
		}
		objectsOf[c.kind] += len(c.rendered)
		minimum += len(c.rendered) + 1
	}
	evs := b.operatorQuery(t0, tDone, nil)
	c := live.Summarize(evs, t0)
	statusWrites := map[*scaleKind]map[string]int{}
	objWrites, statusTotal, crWrites := map[*scaleKind]int{}, map[*scaleKind]int{}, map[*scaleKind]int{}
	kindOfObject := map[string]*scaleKind{}
	for _, cr := range s.crs {
		for _, o := range cr.rendered {
			kindOfObject[o.key()] = cr.kind
		}
	}
	for _, k := range s.kinds {
		statusWrites[k] = map[string]int{}
	}
	var nObj, nStatus, nCR, nOther, nFailed, nConflicts int
	var lastObjectWrite time.Time
	var other []string
	for _, e := range evs {
		if e.Class() != live.ClassWrite {
			continue
		}
		if !e.OK() {
			nFailed++
		}
		if e.Code() == 409 {
			nConflicts++
		}
		r := e.ObjectRef
		var crKind *scaleKind
		if r != nil {
			crKind = s.kindByResource(r.APIGroup, r.Resource)
		}
		switch {
		case objects[auditObjectKey(e)]:
			nObj++
			objWrites[kindOfObject[auditObjectKey(e)]]++
			if e.OK() && e.Verb != "delete" && e.Done.After(lastObjectWrite) {
				lastObjectWrite = e.Done
			}
		case crKind != nil && r.Subresource == "status":
			nStatus++
			statusTotal[crKind]++
			statusWrites[crKind][r.Namespace+"/"+r.Name]++
		case crKind != nil:
			nCR++
			crWrites[crKind]++
		default:
			nOther++
			other = append(other, e.Describe())
		}
	}
	tail := live.Summarize(b.operatorQuery(tDone, quietAt, nil), tDone)
	logf("  %d writes until all converged (%d operand objects, %d status, %d CR, %d other, %d failed), minimum %d; %d more until quiet; %d API reads",
		c.Writes, nObj, nStatus, nCR, nOther, nFailed, minimum, tail.Writes, c.APIReads)
	if !lastObjectWrite.IsZero() {
		b.res.Add(sc, "CRs created -> all operand objects applied", "s", "", "lower", secondsSince(t0, lastObjectWrite)).Note =
			"completion of the operator's last write of a rendered object (audit log)"
		applying := live.Summarize(b.operatorQuery(t0, lastObjectWrite, nil), t0)
		b.res.Add(sc, "operator request rate until all objects applied (excl. leases)", "req/s", "", "",
			float64(applying.Total-applying.Leases)/lastObjectWrite.Sub(t0).Seconds()).Note =
			fmt.Sprintf("%d reads, %d writes, %d events; each of the operator's clients allows 50 req/s (burst 100): pkg/operator/starter.go withClientLimits",
				applying.Reads, applying.Writes, applying.Events)
	}
	converged := "all Ready"
	if !s.single() {
		converged = "all converged"
	}
	b.res.Add(sc, "operator writes until "+converged+" (excl. events, leases)", "writes", fmt.Sprintf("= minimum (%d)", minimum), "lower", float64(c.Writes))
	b.res.Add(sc, "  physical minimum", "writes", "", "", float64(minimum)).Note =
		"per CR: one create per rendered object + 1 status write"
	if s.single() {
		b.res.Add(sc, "  of which operand-object writes", "writes", fmt.Sprint(len(objects)), "lower", float64(nObj))
	}
	for _, k := range s.kinds {
		crs := s.crsOf(k)
		if !s.single() {
			b.res.Add(sc, fmt.Sprintf("  of which %s operand-object writes", k.kind), "writes", fmt.Sprint(objectsOf[k]), "lower", float64(objWrites[k]))
		}
		perCR := make([]float64, 0, len(crs))
		for _, cr := range crs {
			perCR = append(perCR, float64(statusWrites[k][cr.key()]))
		}
		what := "CR"
		if !s.single() {
			what = k.kind
		}
		b.res.Add(sc, fmt.Sprintf("  of which %s status writes", what), "writes", fmt.Sprint(len(crs)), "lower", float64(statusTotal[k]))
		b.res.Add(sc, fmt.Sprintf("  %s status writes per CR", what), "writes", "1 (2 as conditions move from rolling out to converged)", "lower", perCR...)
		b.res.Add(sc, fmt.Sprintf("  of which %s metadata writes", what), "writes", "0 (no finalizer)", "lower", float64(crWrites[k]))
	}
	b.res.Add(sc, "  of which other writes", "writes", "0", "lower", float64(nOther))
	b.res.Add(sc, "  of which failed (4xx/5xx)", "writes", "0", "lower", float64(nFailed))
	b.res.Add(sc, "  of which 409 conflicts", "writes", "0", "lower", float64(nConflicts)).Note =
		"a write on a stale resourceVersion: the informer had not yet seen the operator's previous write"
	b.res.Add(sc, "writes after "+converged+" until quiet", "writes", "0", "lower", float64(tail.Writes))
	b.res.Add(sc, "operator API reads (get/list) until "+converged, "requests", fmt.Sprintf("<= %d (one per object created)", len(objects)), "lower", float64(c.APIReads)).Note =
		"a cache miss asks the API: an object about to be created is not in any informer yet"
	b.res.Add(sc, "events emitted until "+converged, "events", "", "", float64(c.Events))
	b.res.Details[sc+"/writesByKind"] = c.ByKind
	if c.Writes > minimum {
		var dist []string
		for _, k := range s.kinds {
			spread := map[int]int{}
			for _, cr := range s.crsOf(k) {
				spread[statusWrites[k][cr.key()]]++
			}
			keys := make([]int, 0, len(spread))
			for n := range spread {
				keys = append(keys, n)
			}
			sort.Ints(keys)
			for _, n := range keys {
				dist = append(dist, fmt.Sprintf("%d %ss x %d", spread[n], k.kind, n))
			}
		}
		var failedLines []string
		for _, e := range evs {
			if e.Class() == live.ClassWrite && !e.OK() {
				failedLines = append(failedLines, fmt.Sprintf("+%.3fs %s", e.Received.Sub(t0).Seconds(), e.Describe()))
			}
		}
		b.finding(fmt.Sprintf("%s: %d operator writes until %s, the physical minimum is %d: status writes per CR: %s; %d writes failed",
			sc, c.Writes, converged, minimum, strings.Join(dist, ", "), nFailed), failedLines)
	}
	if c.APIReads > len(objects) {
		for _, k := range s.kinds {
			crs := s.crsOf(k)
			if len(crs) == 0 {
				continue
			}
			first := map[string]bool{}
			for _, o := range crs[0].rendered {
				first[o.key()] = true
			}
			var lines []string
			for _, e := range evs {
				if first[auditObjectKey(e)] {
					lines = append(lines, fmt.Sprintf("+%.3fs %s", e.Received.Sub(t0).Seconds(), e.Describe()))
				}
			}
			b.finding(fmt.Sprintf("%s: %d operator API reads (get/list) until %s for %d objects created: %.1f per object; the requests on the objects of %s %s:",
				sc, c.APIReads, converged, len(objects), float64(c.APIReads)/float64(max(1, len(objects))), k.kind, crs[0].key()), lines)
		}
	}
	if nOther > 0 {
		b.finding(fmt.Sprintf("%s: %d operator writes until %s that are neither a rendered object nor a CR", sc, nOther, converged), other)
	}
}

// scaleResync touches every CR of a kind once (an update event each, so one sync each) and
// reports what the syncs did.
func (b *bench) scaleResync(ctx context.Context, s *scaleScenario, k *scaleKind) error {
	sc := s.sc
	crs := s.crsOf(k)
	name := func(what string) string {
		if s.single() {
			return "forced resync" + what
		}
		return "forced resync of the " + k.plural() + what
	}
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	rvs, err := b.objectVersions(ctx, k, crs)
	if err != nil {
		return err
	}
	others := map[string]syncStats{}
	om, err := b.scrape(ctx)
	if err != nil {
		return fmt.Errorf("the sync counter: %w", err)
	}
	before := om.syncStats(k.operand)
	for _, o := range s.kinds {
		if o != k {
			others[o.operand] = om.syncStats(o.operand)
		}
	}
	logf("  forced resync: touching all %d %s", len(crs), k.plural())
	t0 := time.Now()
	err = parallel(ctx, len(crs), b.loadConc, func(i int) error {
		c := crs[i]
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"%d"}}}`, touchAnnotation, time.Now().UnixNano())
		_, err := b.dyn.Resource(k.gvr).Namespace(c.namespace).Patch(ctx, c.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("touch the %s: %w", k.plural(), err)
	}
	after, reached, err := b.waitSyncs(ctx, k.operand, before, float64(len(crs)), 2*time.Second, 3*time.Minute)
	if err != nil {
		logf("  the sync counter did not count %d syncs: %v", len(crs), err)
	}
	t1 := time.Now()
	syncs, failed, meanDur := after.since(before)
	now, err := b.objectVersions(ctx, k, crs)
	if err != nil {
		return err
	}
	var changed []string
	for key, v := range rvs {
		if now[key] != v {
			changed = append(changed, key)
		}
	}
	sort.Strings(changed)
	metric := fmt.Sprintf(`%s{operand=%q}`, syncsMetric, k.operand)
	if s.single() {
		b.res.Add(sc, fmt.Sprintf("forced resync of %d CRs: syncs counted", len(crs)), "syncs", fmt.Sprintf("%d (one per CR)", len(crs)), "", syncs).Note =
			metric + ", from before the first touch until it stayed put for 2s"
	} else {
		b.res.Add(sc, name(": syncs counted"), "syncs", fmt.Sprintf("%d (one per CR)", len(crs)), "", syncs).Note =
			metric + ", from before the first touch until it stayed put for 2s"
	}
	b.res.Add(sc, name(": failed syncs"), "syncs", "0", "lower", failed)
	if !reached.IsZero() {
		b.res.Add(sc, name(": first touch -> all syncs counted"), "s", "", "lower", secondsSince(t0, reached)).Note =
			fmt.Sprintf("the bench patches an annotation on every CR, %d in flight; the counter is polled every 200ms", b.loadConc)
	}
	b.res.Add(sc, name(": duration of a sync"), "s", "", "lower", meanDur).Note =
		fmt.Sprintf(`mean: %s {operand=%q}, sum/count over the resync`, syncDurationMetric, k.operand)
	b.res.Add(sc, name(": operand objects changed"), "objects", "0", "lower", float64(len(changed))).Note =
		"rendered objects whose resourceVersion moved"
	if len(others) > 0 {
		if om, err := b.scrape(ctx); err == nil {
			for operand, st := range others {
				n, _, _ := om.syncStats(operand).since(st)
				b.res.Add(sc, name(fmt.Sprintf(": syncs of %s", operand)), "syncs", "0 (another operand's CRs)", "lower", n)
			}
		}
	}
	logf("  forced resync: %.0f syncs (%.0f failed), mean %.4fs; %d objects changed", syncs, failed, meanDur, len(changed))
	if b.audit == nil {
		return nil
	}
	evs := b.operatorQuery(t0, t1, nil)
	c := live.Summarize(evs, t0)
	b.res.Add(sc, name(": operator writes"), "writes", "0", "lower", float64(c.Writes))
	b.res.Add(sc, name(": operator API reads (get/list)"), "requests", "0", "lower", float64(c.APIReads)).Note =
		"the operator's GET and LIST requests in the audit log from the first touch until the syncs were counted"
	b.res.Add(sc, name(": events"), "events", "0", "lower", float64(c.Events))
	logf("  forced resync: %d writes, %d API reads, %d events", c.Writes, c.APIReads, c.Events)
	if c.Writes > 0 {
		b.finding(fmt.Sprintf("%s: %d operator writes during a forced resync of %d %s with nothing changed (goal 0): %s", sc, c.Writes, len(crs), k.plural(), c.ByKindString()), c.WriteLines)
	}
	if c.APIReads > 0 {
		b.finding(fmt.Sprintf("%s: %d operator API reads (get/list) during a forced resync of %d %s with nothing changed (goal 0)", sc, c.APIReads, len(crs), k.plural()), c.APIReadLines)
	}
	return nil
}

// scaleFootprint measures the operator's memory with the CRs in place, then, with a load, again
// after unrelated Secrets.
func (b *bench) scaleFootprint(ctx context.Context, s *scaleScenario) error {
	sc := s.sc
	pop := s.population()
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	logf("  quiet window of %s with %s", b.scaleQuiet, pop)
	before, err := b.measureIdle(ctx, b.scaleQuiet)
	if err != nil {
		return err
	}
	b.res.Add(sc, fmt.Sprintf("RSS with LWS and %s", pop), "MiB", "< 150", "lower", before.rss...).Note =
		fmt.Sprintf("VmRSS of the operator process, every second over a quiet %s window", b.scaleQuiet)
	b.res.Add(sc, fmt.Sprintf("CPU over a quiet window with LWS and %s", pop), "CPU-s", "", "lower", before.cpu).Note =
		fmt.Sprintf("utime+stime of the operator process over the quiet %s window", b.scaleQuiet)
	b.res.Add(sc, fmt.Sprintf("Go heap in use with LWS and %s", pop), "MiB", "", "lower", before.heap).Note =
		heapInUseMetric + " from the operator's /metrics at the end of the window"
	if b.audit != nil {
		d := before.to.Sub(before.from)
		b.res.Add(sc, fmt.Sprintf("idle with %s: requests/min excl. leases, watch renewals", pop), "req/min", "0", "lower", perMinute(before.c.Total-before.c.Leases-before.c.Watches, d)).Note =
			fmt.Sprintf("by class: %d reads (%d of them watches renewed), %d writes, %d events, %d reviews", before.c.Reads, before.c.Watches, before.c.Writes, before.c.Events, before.c.Reviews)
		b.res.Add(sc, fmt.Sprintf("idle with %s: watch renewals/min", pop), "req/min", "", "", perMinute(before.c.Watches, d)).Note =
			"every informer renews its watch every 5-10 minutes; referenced Secrets and ConfigMaps have one metadata-only informer each"
	}
	if s.loadSecrets == 0 {
		logf("  RSS %.1f MiB, heap %.1f MiB, peak %.1f MiB", median(before.rss), before.heap, before.hwm)
		return nil
	}

	load := objectLoad{prefix: "bench-scale-load", namespaces: 10, secrets: s.loadSecrets}
	logf("  creating %d unrelated Secrets in %d namespaces", load.secrets, load.namespaces)
	t0 := time.Now()
	created, loadErr := b.createLoad(ctx, load)
	defer b.deleteNamespaces(load.selector())
	if loadErr != nil {
		return loadErr
	}
	if b.audit != nil {
		c := live.Summarize(b.operatorQuery(t0, time.Now(), nil), t0)
		b.res.Add(sc, "load: operator requests excl. leases, watch renewals", "requests", "0", "lower", float64(c.Total-c.Leases-c.Watches)).Note =
			fmt.Sprintf("while %d unrelated Secrets were created in %d namespaces (in %s); %d watches renewed meanwhile",
				created, load.namespaces, time.Since(t0).Round(time.Second), c.Watches)
	}
	sleep(ctx, 5*time.Second)
	after, err := b.measureIdle(ctx, b.scaleQuiet)
	if err != nil {
		return err
	}
	b.res.Add(sc, fmt.Sprintf("RSS with LWS, %s and %d unrelated Secrets", pop, created), "MiB", "< 150", "lower", after.rss...)
	b.res.Add(sc, fmt.Sprintf("Go heap in use with LWS, %s and %d unrelated Secrets", pop, created), "MiB", "", "lower", after.heap)
	b.res.Add(sc, "heap growth from unrelated Secrets", "MiB", "small (Secrets' data is cached by label and for referenced ones; of the rest, identities only)", "", after.heap-before.heap)
	b.res.Add(sc, "RSS growth from unrelated Secrets (median after - median before)", "MiB", "~0", "", median(after.rss)-median(before.rss))
	logf("  RSS %.1f -> %.1f MiB, heap %.1f -> %.1f MiB, peak %.1f MiB", median(before.rss), median(after.rss), before.heap, after.heap, after.hwm)
	return nil
}

// scaleDelete deletes every CR and times garbage collection of the objects they owned.
func (b *bench) scaleDelete(ctx context.Context, s *scaleScenario) error {
	sc := s.sc
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	namespaces := map[string]bool{}
	for _, c := range s.crs {
		namespaces[c.namespace] = true
	}
	logf("  deleting the %d CRs", len(s.crs))
	t0 := time.Now()
	for ns := range namespaces {
		for _, k := range s.kinds {
			err := b.dyn.Resource(k.gvr).Namespace(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: scaleLabel + "=true"})
			if err != nil {
				return fmt.Errorf("delete the %s in %s: %w", k.plural(), ns, err)
			}
		}
	}
	// The garbage collector deletes what the CRs owned at kube-controller-manager's client rate
	// (about 14 objects a second measured here, 2,800 in 206 s): 10 minutes, and a tenth of a
	// second per owned object beyond that, so 14,000 objects have time too.
	owned := 0
	for _, c := range s.crs {
		owned += len(c.rendered)
	}
	left := 0
	err := live.Poll(ctx, time.Second, 10*time.Minute+time.Duration(owned)*100*time.Millisecond, func() (bool, error) {
		left = 0
		for _, k := range s.kinds {
			listed, err := b.listObjects(ctx, k, resourcesOf(s.crsOf(k), true))
			if err != nil {
				return false, nil
			}
			for _, lo := range listed {
				if namespaces[lo.namespace] {
					left++
				}
			}
			remaining, err := b.listScaleCRs(ctx, k)
			if err != nil {
				return false, nil
			}
			left += len(remaining)
		}
		return left == 0, nil
	})
	if err != nil {
		return fmt.Errorf("%d CRs and operand objects left after deleting the CRs: %w", left, err)
	}
	tGone := time.Now()
	b.res.Add(sc, "CRs deleted -> their objects garbage-collected", "s", "", "lower", secondsSince(t0, tGone)).Note =
		"the bench deletes the CRs (one deletecollection per namespace and kind); the garbage collector deletes what they own; lists polled every second"
	if b.audit != nil {
		c := live.Summarize(b.operatorQuery(t0, tGone, nil), t0)
		b.res.Add(sc, "deletion: operator writes", "writes", "0 (garbage collection does it)", "lower", float64(c.Writes))
		if c.Writes > 0 {
			b.finding(fmt.Sprintf("%s: %d operator writes while the CRs were deleted (goal 0): %s", sc, c.Writes, c.ByKindString()), c.WriteLines)
		}
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
				if rss, err := live.RSSBytes(b.op.Pid); err == nil {
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
func (b *bench) addPeakRSS(sc, name string) {
	hwm, err := live.ProcStatusKB(b.op.Pid, "VmHWM:")
	if err != nil {
		logf("VmHWM: %v", err)
		return
	}
	b.res.Add(sc, name, "MiB", "< 150", "lower", hwm/1024).Note =
		"VmHWM of /proc/<pid>/status: the process's highest RSS so far (every earlier scenario since its last restart included)"
}
