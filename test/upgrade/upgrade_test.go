package upgrade

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

const (
	// revisionAnnotation is the Deployment controller's count of the pod templates a Deployment
	// has rolled out: each increment is one rollout (every pod replaced).
	revisionAnnotation = "deployment.kubernetes.io/revision"
	readyTimeout       = 15 * time.Minute
	convergeTimeout    = 15 * time.Minute
	// quiet is how long the new operator must make no write, with everything Ready and every
	// rollout complete, before the suite takes its measurements: a second roll (a Deployment
	// applied twice) shows within it.
	quiet = 30 * time.Second
	poll  = 2 * time.Second
)

// env is the suite's configuration, from hack/test-upgrade.sh.
type env struct {
	short                  bool
	hook, auditLog, user   string
	operatorNS, previous   string
	result                 string
	kube                   kubernetes.Interface
	dyn                    dynamic.Interface
	audit                  *live.AuditLog
	workload               *workload
	deploymentNamespaces   []string
	previousDeployments    map[string]*appsv1.Deployment
	currentDeployments     map[string]*appsv1.Deployment
	upgradeStart, newStart time.Time
	// deployObjects: the cluster-scoped RBAC of the working tree's deploy/ (installedByDeploy).
	deployOnce    sync.Once
	deployObjects []*unstructured.Unstructured
}

func TestUpgrade(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := newEnv(t)

	p := fullPlan
	if e.short {
		p = shortPlan
	}
	w, err := p.build()
	if err != nil {
		t.Fatal(err)
	}
	e.workload = w
	e.deploymentNamespaces = append([]string{e.operatorNS}, w.namespaces...)
	t.Logf("previous release %s; %d CRs in %d namespaces", e.previous, len(w.objects), len(w.namespaces))
	e.create(ctx, t)
	readySince := time.Now()
	e.waitSettled(ctx, t, "the previous release", readyTimeout, time.Time{})
	t.Logf("every CR ready on the previous release after %s", time.Since(readySince).Round(time.Second))
	e.previousDeployments = e.deployments(ctx, t)
	userLWS := e.makeUserLWS(ctx, t, w.namespaces[0])

	// From here on, every change of a CR's conditions and of a Deployment's status is seen.
	rec := &recorder{minimum: map[string]int32{}}
	watchCtx, stopWatching := context.WithCancel(ctx)
	var watchers sync.WaitGroup
	e.watchAll(watchCtx, t, rec, &watchers)

	e.upgradeStart = time.Now()
	e.runHook(t, "install-current") // OLM: the new CSV's CRDs first, then its permissions
	e.runHook(t, "stop-previous")   // OLM: the Deployment replaced, its old pod gone
	e.newStart = time.Now()
	e.runHook(t, "start-current")
	settled := e.waitSettled(ctx, t, "the upgraded operator", convergeTimeout, e.newStart)
	stopWatching()
	watchers.Wait()

	e.currentDeployments = e.deployments(ctx, t)
	userLWS.check(ctx, t, e)
	e.checkInstalledRBACReleased(ctx, t)
	res := e.measure(rec, settled)
	res.report(t)
	if e.result != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(e.result, data, 0o644); err != nil {
			t.Error(err)
		}
	}

	// The promises of a seamless upgrade: no pod replaced unless its manifest changed (and then
	// once), no condition of a CR False while its operands serve.
	for _, d := range res.Deployments {
		if d.Unintended > 0 {
			t.Errorf("Deployment %s: %d rollout(s), %d more than a change of its pod template between the releases explains (template changed: %v)", d.Key, d.Rollouts, d.Unintended, d.TemplateChanged)
		}
		if d.Gone {
			t.Errorf("Deployment %s disappeared in the upgrade", d.Key)
		}
		if d.BelowMinimum {
			t.Errorf("Deployment %s fell below its minimum of available replicas (%d)", d.Key, d.MinimumAvailable)
		}
	}
	for _, f := range res.Flaps {
		t.Errorf("condition flap: %s", f)
	}
}

func newEnv(t *testing.T) *env {
	cfg, err := live.ConfigFromEnv("the local cluster of hack/test-upgrade.sh with the previous release running")
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	e := &env{
		short:      os.Getenv("UPGRADE_SHORT") == "true",
		hook:       os.Getenv("UPGRADE_HOOK"),
		auditLog:   os.Getenv("UPGRADE_AUDIT_LOG"),
		user:       os.Getenv("UPGRADE_OPERATOR_USER"),
		operatorNS: os.Getenv("UPGRADE_OPERATOR_NAMESPACE"),
		previous:   os.Getenv("UPGRADE_PREVIOUS_REF"),
		result:     os.Getenv("UPGRADE_RESULT"),
	}
	for name, v := range map[string]string{"UPGRADE_HOOK": e.hook, "UPGRADE_AUDIT_LOG": e.auditLog, "UPGRADE_OPERATOR_USER": e.user, "UPGRADE_OPERATOR_NAMESPACE": e.operatorNS} {
		if v == "" {
			t.Fatalf("%s is not set: run make test-upgrade (hack/test-upgrade.sh)", name)
		}
	}
	if e.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if e.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if e.audit, err = live.NewAuditLog(e.auditLog); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) runHook(t *testing.T, step string) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command(e.hook, step)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v", e.hook, step, err)
	}
	t.Logf("upgrade step %s: %s", step, time.Since(start).Round(time.Millisecond))
}

// create makes the namespaces, the supporting objects and the CRs.
func (e *env) create(ctx context.Context, t *testing.T) {
	for _, ns := range e.workload.namespaces {
		_, err := e.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for _, obj := range e.workload.supporting {
		if err := e.createUnstructured(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	for i, obj := range e.workload.crs {
		if err := e.createUnstructured(ctx, obj, e.workload.objects[i].kind.gvr); err != nil {
			t.Fatal(err)
		}
	}
}

var coreGVRs = map[string]schema.GroupVersionResource{
	"Secret":                {Version: "v1", Resource: "secrets"},
	"PersistentVolume":      {Version: "v1", Resource: "persistentvolumes"},
	"PersistentVolumeClaim": {Version: "v1", Resource: "persistentvolumeclaims"},
}

func (e *env) createUnstructured(ctx context.Context, obj *unstructured.Unstructured, gvr ...schema.GroupVersionResource) error {
	g, ok := coreGVRs[obj.GetKind()]
	if len(gvr) > 0 {
		g, ok = gvr[0], true
	}
	if !ok {
		return fmt.Errorf("no resource for kind %s", obj.GetKind())
	}
	var ri dynamic.ResourceInterface = e.dyn.Resource(g)
	if ns := obj.GetNamespace(); ns != "" {
		ri = e.dyn.Resource(g).Namespace(ns)
	}
	if _, err := ri.Create(ctx, obj, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// crState is what a CR's status says: its serving condition and whether the status is of its
// current generation.
func crState(k kind, u *unstructured.Unstructured) (condition metav1.ConditionStatus, reason string, current bool) {
	observed, found, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	current = found && observed == u.GetGeneration()
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	condition = metav1.ConditionUnknown
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == k.condition {
			condition = metav1.ConditionStatus(fmt.Sprint(m["status"]))
			reason = fmt.Sprint(m["reason"])
		}
	}
	return condition, reason, current
}

// notSettled lists what is not yet as it should be: a CR not serving or not current, a
// Deployment whose rollout is not complete.
func (e *env) notSettled(ctx context.Context) ([]string, error) {
	var out []string
	for _, o := range e.workload.objects {
		var ri dynamic.ResourceInterface = e.dyn.Resource(o.kind.gvr)
		if o.namespace != "" {
			ri = e.dyn.Resource(o.kind.gvr).Namespace(o.namespace)
		}
		u, err := ri.Get(ctx, o.name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		cond, reason, current := crState(o.kind, u)
		if cond != metav1.ConditionTrue || !current {
			out = append(out, fmt.Sprintf("%s: %s=%s (%s), observedGeneration current: %v", o.key(), o.kind.condition, cond, reason, current))
		}
	}
	rolling, err := e.deploymentsRollingOut(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range rolling {
		out = append(out, fmt.Sprintf("Deployment %s rolling out", d))
	}
	return out, nil
}

// deploymentsRollingOut lists (namespace/name) the Deployments of the suite's namespaces whose
// rollout is not complete.
func (e *env) deploymentsRollingOut(ctx context.Context) ([]string, error) {
	var out []string
	for _, ns := range e.deploymentNamespaces {
		list, err := e.kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for i := range list.Items {
			if d := &list.Items[i]; !rolledOut(d) {
				out = append(out, d.Namespace+"/"+d.Name)
			}
		}
	}
	return out, nil
}

func rolledOut(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.AvailableReplicas == want && s.Replicas == want
}

// waitSettled polls until every CR serves with a current status and every rollout is complete,
// and the operator has made no write for `quiet`; it returns when that state began (the last
// write or the last change, whichever came later). since: the operator's writes counted from.
func (e *env) waitSettled(ctx context.Context, t *testing.T, what string, timeout time.Duration, since time.Time) time.Time {
	t.Helper()
	var last []string
	var settledAt time.Time
	err := wait.PollUntilContextTimeout(ctx, poll, timeout, true, func(ctx context.Context) (bool, error) {
		pending, err := e.notSettled(ctx)
		if err != nil {
			last = []string{err.Error()}
			return false, nil
		}
		last = pending
		if len(pending) > 0 {
			settledAt = time.Time{}
			return false, nil
		}
		now := time.Now()
		if settledAt.IsZero() {
			settledAt = now
		}
		from := since
		if from.IsZero() {
			from = now.Add(-time.Hour)
		}
		lastWrite := e.audit.LastWrite(e.user, from)
		if now.Sub(lastWrite) < quiet || now.Sub(settledAt) < quiet {
			return false, nil
		}
		if lastWrite.After(settledAt) {
			settledAt = lastWrite
		}
		return true, nil
	})
	if err != nil {
		if len(last) > 12 {
			last = append(last[:12], fmt.Sprintf("... %d more", len(last)-12))
		}
		t.Fatalf("%s did not settle within %s:\n  %s", what, timeout, strings.Join(last, "\n  "))
	}
	return settledAt
}

// deployments are the Deployments of the operands' namespaces by namespace/name.
func (e *env) deployments(ctx context.Context, t *testing.T) map[string]*appsv1.Deployment {
	out := map[string]*appsv1.Deployment{}
	for _, ns := range e.deploymentNamespaces {
		list, err := e.kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			d := list.Items[i]
			out[d.Namespace+"/"+d.Name] = &d
		}
	}
	return out
}

// recorder keeps what the watches saw during the upgrade.
type recorder struct {
	mu sync.Mutex
	// flaps are the transitions of a CR's serving condition away from True.
	flaps []string
	// serving is each CR's serving condition as last seen True (a CR without status yet, as
	// in a switch from an upstream operator that wrote none, has not served: no flap).
	serving map[string]bool
	// minimum is the fewest available replicas each Deployment had.
	minimum map[string]int32
	// progressing counts the CRs that showed a rollout (Progressing=True) meanwhile.
	progressing map[string]bool
}

func (r *recorder) crEvent(k kind, u *unstructured.Unstructured, at time.Duration) {
	cond, reason, _ := crState(k, u)
	key := k.name + " " + u.GetNamespace() + "/" + u.GetName()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.serving == nil {
		r.serving = map[string]bool{}
	}
	if cond != metav1.ConditionTrue && r.serving[key] {
		r.flaps = append(r.flaps, fmt.Sprintf("+%.1fs %s %s/%s %s=%s (%s)", at.Seconds(), k.name, u.GetNamespace(), u.GetName(), k.condition, cond, reason))
	}
	r.serving[key] = cond == metav1.ConditionTrue
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == "Progressing" && m["status"] == "True" {
			if r.progressing == nil {
				r.progressing = map[string]bool{}
			}
			r.progressing[key] = true
		}
	}
}

func (r *recorder) deploymentEvent(d *appsv1.Deployment) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := d.Namespace + "/" + d.Name
	if v, ok := r.minimum[key]; !ok || d.Status.AvailableReplicas < v {
		r.minimum[key] = d.Status.AvailableReplicas
	}
}

// watchAll watches every kind of CR and the Deployments from now on, until ctx ends.
func (e *env) watchAll(ctx context.Context, t *testing.T, rec *recorder, wg *sync.WaitGroup) {
	start := time.Now()
	for _, k := range kinds {
		w, err := e.dyn.Resource(k.gvr).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(k kind, w watch.Interface) {
			defer wg.Done()
			defer w.Stop()
			for ev := range w.ResultChan() {
				if u, ok := ev.Object.(*unstructured.Unstructured); ok && ev.Type != watch.Deleted {
					rec.crEvent(k, u, time.Since(start))
				}
			}
		}(k, w)
	}
	for _, ns := range e.deploymentNamespaces {
		w, err := e.kube.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func(w watch.Interface) {
			defer wg.Done()
			defer w.Stop()
			for ev := range w.ResultChan() {
				if d, ok := ev.Object.(*appsv1.Deployment); ok && ev.Type != watch.Deleted {
					rec.deploymentEvent(d)
				}
			}
		}(w)
	}
}

// deploymentResult is what the upgrade did to one Deployment.
type deploymentResult struct {
	Key string
	// Rollouts: how many times its pods were replaced (revisions added).
	Rollouts int
	// TemplateChanged: the two releases render its pod template differently, so one rollout
	// is intended; Changed lists the template's fields that differ.
	TemplateChanged bool
	Changed         []string `json:",omitempty"`
	// Unintended: rollouts beyond the one a changed template explains.
	Unintended       int
	MinimumAvailable int32
	LowestAvailable  int32
	BelowMinimum     bool
	Gone, New        bool `json:",omitempty"`
}

type result struct {
	PreviousRelease string
	Short           bool
	CRs             int
	CRsByKind       map[string]int
	Deployments     []deploymentResult
	// Counts over Deployments.
	Untouched, IntendedRolls, UnintendedRolls, RolledDeployments int
	// ChangedFields: each pod template field that differs, with how many Deployments.
	ChangedFields map[string]int
	// Flaps: a CR's serving condition other than True during the upgrade.
	Flaps []string
	// ProgressingCRs: CRs that showed a rollout as Progressing=True.
	ProgressingCRs int
	// Writes by the new operator from its start until the measurement.
	Writes       int
	WritesByKind map[string]int
	// SecondsToSettled: from the new operator's start until every CR served with a current
	// observedGeneration, every rollout was complete and the operator's last write was made.
	SecondsToSettled float64
}

func (e *env) measure(rec *recorder, settled time.Time) *result {
	res := &result{PreviousRelease: e.previous, Short: e.short, CRs: len(e.workload.objects), CRsByKind: map[string]int{}, ChangedFields: map[string]int{}}
	for _, o := range e.workload.objects {
		res.CRsByKind[o.kind.name]++
	}
	keys := map[string]bool{}
	for k := range e.previousDeployments {
		keys[k] = true
	}
	for k := range e.currentDeployments {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		before, after := e.previousDeployments[k], e.currentDeployments[k]
		d := deploymentResult{Key: k}
		switch {
		case after == nil:
			d.Gone = true
		case before == nil:
			d.New = true
		default:
			d.Rollouts = revision(after) - revision(before)
			d.Changed = diffTemplates(before.Spec.Template, after.Spec.Template)
			d.TemplateChanged = len(d.Changed) > 0
			intended := 0
			if d.TemplateChanged {
				intended = 1
			}
			d.Unintended = max(0, d.Rollouts-intended)
			// The lower of the two releases' minimums: a Deployment the new release scales up (the LWS
			// controller, 1 to 2 replicas) has its old minimum of available replicas until the new pod
			// is ready; a rollout that falls below both is what this catches.
			d.MinimumAvailable = min(minimumAvailable(before), minimumAvailable(after))
			d.LowestAvailable = after.Status.AvailableReplicas
			rec.mu.Lock()
			if v, ok := rec.minimum[k]; ok {
				d.LowestAvailable = v
			}
			rec.mu.Unlock()
			d.BelowMinimum = d.LowestAvailable < d.MinimumAvailable
		}
		switch {
		case d.Rollouts == 0 && !d.Gone && !d.New:
			res.Untouched++
		case d.Rollouts > 0:
			res.RolledDeployments++
		}
		if d.TemplateChanged && d.Rollouts > 0 {
			res.IntendedRolls++
		}
		res.UnintendedRolls += d.Unintended
		for _, f := range d.Changed {
			res.ChangedFields[f]++
		}
		res.Deployments = append(res.Deployments, d)
	}
	rec.mu.Lock()
	res.Flaps = append(res.Flaps, rec.flaps...)
	res.ProgressingCRs = len(rec.progressing)
	rec.mu.Unlock()
	writes := e.audit.Query(e.user, e.newStart, time.Now(), func(ev *live.AuditEvent) bool { return ev.Class() == live.ClassWrite })
	counts := live.Summarize(writes, e.newStart)
	res.Writes, res.WritesByKind = counts.Writes, counts.ByKind
	res.SecondsToSettled = settled.Sub(e.newStart).Seconds()
	return res
}

func revision(d *appsv1.Deployment) int {
	n, _ := strconv.Atoi(d.Annotations[revisionAnnotation])
	return n
}

// minimumAvailable is the Deployment controller's minimum during a rollout: replicas minus
// maxUnavailable (rounded down), at least one for a Deployment that should run.
func minimumAvailable(d *appsv1.Deployment) int32 {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if want == 0 {
		return 0
	}
	unavailable := 0
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		if ru.MaxUnavailable.Type == 0 {
			unavailable = int(ru.MaxUnavailable.IntVal)
		} else {
			pct, _ := strconv.Atoi(strings.TrimSuffix(ru.MaxUnavailable.StrVal, "%"))
			unavailable = int(want) * pct / 100
		}
	}
	return max(1, want-int32(min(unavailable, int(want))))
}

// diffTemplates lists the fields of two pod templates that differ, as paths without list
// indices (env[].name, not env[3].name), so the same change in many Deployments reads as one.
func diffTemplates(a, b corev1.PodTemplateSpec) []string {
	if reflect.DeepEqual(a, b) {
		return nil
	}
	fa, fb := flatten(&a), flatten(&b)
	set := map[string]bool{}
	for k, v := range fa {
		if w, ok := fb[k]; !ok || w != v {
			set[generalize(k)] = true
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			set[generalize(k)] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func flatten(obj any) map[string]string {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(prefix+"."+k, c)
			}
		case []any:
			for i, c := range x {
				walk(fmt.Sprintf("%s[%d]", prefix, i), c)
			}
		default:
			out[prefix] = fmt.Sprint(x)
		}
	}
	walk("", u)
	return out
}

// generalize drops list indices, and keeps an env variable's or an annotation's name (what
// says why it changed).
func generalize(path string) string {
	var b strings.Builder
	depth := 0
	for _, r := range path {
		switch {
		case r == '[':
			depth++
			b.WriteString("[]")
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.TrimPrefix(b.String(), ".")
}

func (r *result) report(t *testing.T) {
	t.Logf("upgrade from %s: %d CRs %v", r.PreviousRelease, r.CRs, r.CRsByKind)
	t.Logf("Deployments: %d; untouched %d; rolled %d (intended rolls %d, unintended rollouts %d)", len(r.Deployments), r.Untouched, r.RolledDeployments, r.IntendedRolls, r.UnintendedRolls)
	for _, d := range r.Deployments {
		if d.Rollouts > 0 || d.TemplateChanged || d.Gone || d.New {
			t.Logf("  %s: %d rollout(s), template changed %v, unintended %d, available min %d (minimum %d) %s", d.Key, d.Rollouts, d.TemplateChanged, d.Unintended, d.LowestAvailable, d.MinimumAvailable, strings.Join(d.Changed, " "))
		}
	}
	fields := make([]string, 0, len(r.ChangedFields))
	for f, n := range r.ChangedFields {
		fields = append(fields, fmt.Sprintf("%s x%d", f, n))
	}
	sort.Strings(fields)
	t.Logf("pod template fields changed between the releases: %s", strings.Join(fields, ", "))
	t.Logf("condition flaps: %d; CRs Progressing meanwhile: %d", len(r.Flaps), r.ProgressingCRs)
	for _, f := range r.Flaps {
		t.Logf("  %s", f)
	}
	kinds := make([]string, 0, len(r.WritesByKind))
	for k, n := range r.WritesByKind {
		kinds = append(kinds, fmt.Sprintf("%s x%d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("writes by the new operator: %d (%s)", r.Writes, strings.Join(kinds, ", "))
	t.Logf("settled %.0fs after the new operator started", r.SecondsToSettled)
}

// checkInstalledRBACReleased: the LeaderWorkerSet controller's ServiceAccount and RBAC, which the
// previous release made owned by the CR and deploy/ now installs (issue 33), exist and are owned
// by the CR no more, so deleting the CR would not take them (the new operator's first step).
func (e *env) checkInstalledRBACReleased(ctx context.Context, t *testing.T) {
	rbac := func(resource string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
	}
	for _, o := range []struct {
		gvr       schema.GroupVersionResource
		namespace string
		name      string
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, e.operatorNS, "lws-controller-manager"},
		{rbac("clusterroles"), "", "lws-manager-role"},
		{rbac("clusterrolebindings"), "", "lws-manager-rolebinding"},
		{rbac("clusterroles"), "", "lws-metrics-auth-role"},
		{rbac("clusterrolebindings"), "", "lws-metrics-auth-rolebinding"},
		{rbac("clusterroles"), "", "lws-metrics-reader"},
		{rbac("roles"), e.operatorNS, "lws-leader-election-role"},
		{rbac("rolebindings"), e.operatorNS, "lws-leader-election-rolebinding"},
	} {
		u, err := e.dyn.Resource(o.gvr).Namespace(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s %s, installed by deploy/: %v", o.gvr.Resource, o.name, err)
			continue
		}
		for _, ref := range u.GetOwnerReferences() {
			if ref.Kind == "LeaderWorkerSetOperator" {
				t.Errorf("%s %s is still owned by LeaderWorkerSetOperator %s: deleting the CR would delete the install's RBAC", o.gvr.Resource, o.name, ref.Name)
			}
		}
	}
}
