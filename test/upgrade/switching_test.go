package upgrade

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
	"github.com/llm-infra/llm-infra-operator/test/internal/switching"
)

// switchCase is one custom resource and the objects an upstream operator made for it.
type switchCase struct {
	operator string
	dir      string
	kind     kind
	// volume: the CR's file storage claim, bound in advance (the local cluster has no provisioner).
	volume string
	// namespace: the upstream operator's own namespace, where its objects are; empty: a
	// namespace of the case's own.
	namespace string
	// before: the README's steps before this operator starts; after: its steps once the CR is
	// served, with their checks (both optional).
	before func(ctx context.Context, e *env) error
	after  func(ctx context.Context, t *testing.T, e *env, objects []upstreamObject) any
	// userDeletes: the namespace the README tells the user to delete after the switch; its
	// objects are expected deleted, not adopted.
	userDeletes string
}

// The upstream operators' cases: the batch gateway's (llm-d-batch-gateway-operator) and the
// inference gateway's (inference-gateway/operator), each in a namespace of its own.
var switchCases = []switchCase{
	{operator: "batch-gateway", dir: "../golden/batch-gateway/batch_v1alpha1_llmbatchgateway_sync", kind: batchKind},
	{operator: "batch-gateway", dir: "../golden/batch-gateway/batch_v1alpha1_llmbatchgateway_async", kind: batchKind},
	{operator: "batch-gateway", dir: "../golden/batch-gateway/dev-sync-fs", kind: batchKind, volume: "batch-gateway-files"},
	{operator: "inference-gateway", dir: "../golden/inference-gateway/gateway-minimal", kind: gatewayKind},
	{operator: "inference-gateway", dir: "../golden/inference-gateway/gateway-with-model-routing", kind: gatewayKind},
	{operator: "inference-gateway", dir: "../golden/inference-gateway/extra-empty-spec", kind: gatewayKind},
	{operator: "inference-gateway", dir: "../golden/inference-gateway/mcp-server", kind: mcpKind},
	{operator: "inference-gateway", dir: "../golden/inference-gateway/extra-mcp-minimal", kind: mcpKind},
	lwsSwitchCase,
}

// leftBehindReported are the upstream objects this operator does not make and leaves in place
// (kind and name), each named in the README section the value is the heading of; any other
// object left behind fails the suite (never silently orphaned). They keep their owner
// reference to the CR, so they go with it.
var leftBehindReported = map[string]string{
	"ClusterRole lws-proxy-role":                        lwsReadmeSection,
	"ClusterRoleBinding lws-proxy-rolebinding":          lwsReadmeSection,
	"ClusterRoleBinding lws-metrics-reader-rolebinding": lwsReadmeSection,
}

// upstreamObject is an object an upstream operator made, as the suite created it.
type upstreamObject struct {
	operator string
	gvr      schema.GroupVersionResource
	kind     string
	ns, name string
	uid      types.UID
}

func (o upstreamObject) key() string { return o.kind + " " + o.ns + "/" + o.name }

// switchOutcome is what became of an upstream object once this operator ran.
type switchOutcome struct {
	Object  string
	Outcome string // adopted (UID kept, now managed), installed (UID kept, now deploy/'s), replaced (deleted and made anew), deleted, left
}

type switchResult struct {
	Operator string
	Objects  int
	Outcomes map[string]int
	Details  []switchOutcome
	// Deployments: each upstream Deployment's rollouts and lowest available replicas.
	Deployments []deploymentResult
	PodsRolled  int
	Writes      int
	WritesBy    map[string]int
	// After: what the README's steps after the switch found (the case's after hook).
	After any `json:",omitempty"`
}

func TestSwitching(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	cfg, _ := live.ConfigFromEnv("the local cluster of hack/test-upgrade.sh switching")
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))

	var objects []upstreamObject
	e.workload = &workload{}
	for _, c := range switchCases {
		ns := c.namespace
		if ns == "" {
			ns = strings.Trim(strings.NewReplacer("_", "-", "batch-v1alpha1-llmbatchgateway-", "").Replace("switch-"+filepath.Base(c.dir)), "-")
		}
		e.workload.namespaces = append(e.workload.namespaces, ns)
		if _, err := e.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		cr, err := readCR(filepath.Join(c.dir, "cr.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range referencedSecrets(cr, ns) {
			if err := e.createUnstructured(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		if c.volume != "" {
			for _, v := range volume(ns, c.volume) {
				if err := e.createUnstructured(ctx, v); err != nil {
					t.Fatal(err)
				}
			}
		}
		created, err := createCR(ctx, e, mapper, cr, ns)
		if err != nil {
			t.Fatal(err)
		}
		e.workload.objects = append(e.workload.objects, object{kind: c.kind, namespace: created.GetNamespace(), name: cr.GetName()})
		made, err := createUpstreamObjects(ctx, e, mapper, c, ns, created.GetUID())
		if err != nil {
			t.Fatal(err)
		}
		objects = append(objects, made...)
	}
	// The operator's namespace holds the LeaderWorkerSet controller it makes.
	e.deploymentNamespaces = append(append([]string(nil), e.workload.namespaces...), e.operatorNS)
	// Upstream's pods run (the local cluster's kwok makes them ready) before the switch.
	e.waitRolledOut(ctx, t)
	e.previousDeployments = e.deployments(ctx, t)
	for _, c := range switchCases {
		if c.before != nil {
			if err := c.before(ctx, e); err != nil {
				t.Fatalf("%s, before the switch: %v", c.operator, err)
			}
		}
	}

	rec := &recorder{minimum: map[string]int32{}}
	watchCtx, stopWatching := context.WithCancel(ctx)
	var watchers sync.WaitGroup
	e.watchAll(watchCtx, t, rec, &watchers)
	e.newStart = time.Now()
	// README's step 3: install this operator (deploy/, which takes over upstream's objects of
	// the same names: installedByDeploy), then it starts.
	e.runHook(t, "install-current")
	e.runHook(t, "start-current")
	settled := e.waitSettled(ctx, t, "the operator after the switch", convergeTimeout, e.newStart)
	stopWatching()
	watchers.Wait()
	e.currentDeployments = e.deployments(ctx, t)
	t.Logf("settled %.0fs after the operator started", settled.Sub(e.newStart).Seconds())

	upgradeLike := e.measure(rec, settled)
	results := map[string]*switchResult{}
	for _, c := range switchCases {
		if c.after != nil {
			after := c.after(ctx, t, e, objects)
			if results[c.operator] == nil {
				results[c.operator] = &switchResult{Operator: c.operator, Outcomes: map[string]int{}, WritesBy: map[string]int{}}
			}
			results[c.operator].After = after
		}
	}
	userDeletes := map[string]bool{}
	for _, c := range switchCases {
		if c.userDeletes != "" {
			userDeletes[c.userDeletes] = true
		}
	}
	for _, o := range objects {
		r := results[o.operator]
		if r == nil {
			r = &switchResult{Operator: o.operator, Outcomes: map[string]int{}, WritesBy: map[string]int{}}
			results[o.operator] = r
		}
		r.Objects++
		outcome := e.outcomeOf(ctx, t, o)
		r.Outcomes[outcome]++
		r.Details = append(r.Details, switchOutcome{Object: o.key(), Outcome: outcome})
		want := "adopted"
		section, reported := leftBehindReported[o.kind+" "+o.name]
		switch {
		case installedByDeploy(e, o.kind, o.name) != nil:
			want = "installed"
		case reported:
			want = "left"
			if !readmeNames(t, section, o.name) {
				t.Errorf("%s (%s) is left behind, and README.md's section %q does not name it", o.key(), o.operator, section)
			}
		case userDeletes[o.ns]:
			want = "deleted"
		}
		switch {
		case outcome == want:
		case outcome == "left":
			t.Errorf("%s (%s) is left behind unmanaged, and the README does not say so", o.key(), o.operator)
		case outcome == "replaced" && o.kind == "Deployment":
			t.Errorf("%s was deleted and made anew: its pods all went at once", o.key())
		default:
			t.Errorf("%s (%s): %s, want %s", o.key(), o.operator, outcome, want)
		}
	}
	byNamespace := map[string]string{}
	for _, o := range objects {
		byNamespace[o.ns] = o.operator
	}
	// The gateways' objects are all in their CRs' namespaces; what this operator writes
	// cluster-wide or in its own namespace is the LeaderWorkerSet controller's.
	byNamespace[""], byNamespace[e.operatorNS] = lwsSwitchCase.operator, lwsSwitchCase.operator
	for _, d := range upgradeLike.Deployments {
		op := byNamespace[strings.SplitN(d.Key, "/", 2)[0]]
		if r := results[op]; r != nil {
			r.Deployments = append(r.Deployments, d)
			r.PodsRolled += d.Rollouts
			if d.BelowMinimum {
				t.Errorf("Deployment %s fell below its minimum of available replicas (%d) in the switch", d.Key, d.MinimumAvailable)
			}
		}
	}
	writes := e.audit.Query(e.user, e.newStart, time.Now(), func(ev *live.AuditEvent) bool { return ev.Class() == live.ClassWrite })
	for _, w := range writes {
		if w.ObjectRef == nil {
			continue
		}
		if r := results[byNamespace[w.ObjectRef.Namespace]]; r != nil {
			r.Writes++
			key := w.Verb + " " + w.ObjectRef.Resource + subresource(w)
			if !w.OK() {
				// A create that found the name taken (adoption: read, then update), a conflict.
				key += fmt.Sprintf(" (%d)", w.Code())
			}
			r.WritesBy[key]++
		}
	}
	ops := make([]string, 0, len(results))
	for op := range results {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var all []*switchResult
	for _, op := range ops {
		r := results[op]
		all = append(all, r)
		t.Logf("%s: %d upstream objects: %v; %d Deployments, %d pod rollouts; %d writes %v", op, r.Objects, r.Outcomes, len(r.Deployments), r.PodsRolled, r.Writes, r.WritesBy)
		for _, d := range r.Details {
			if d.Outcome != "adopted" {
				t.Logf("  %s: %s", d.Object, d.Outcome)
			}
		}
		for _, d := range r.Deployments {
			t.Logf("  Deployment %s: %d rollout(s), lowest available %d (minimum %d); changed %s", d.Key, d.Rollouts, d.LowestAvailable, d.MinimumAvailable, strings.Join(d.Changed, " "))
		}
	}
	t.Logf("condition flaps after the operator started: %d", len(upgradeLike.Flaps))
	for _, f := range upgradeLike.Flaps {
		t.Logf("  %s", f)
	}
	if e.result != "" {
		data, _ := json.MarshalIndent(map[string]any{"operators": all, "flaps": upgradeLike.Flaps, "secondsToSettled": upgradeLike.SecondsToSettled}, "", "  ")
		if err := os.WriteFile(e.result, data, 0o644); err != nil {
			t.Error(err)
		}
	}
}

func subresource(e *live.AuditEvent) string {
	if e.ObjectRef.Subresource != "" {
		return "/" + e.ObjectRef.Subresource
	}
	return ""
}

// createCR creates a case's CR (in ns if its kind is namespaced) and, when its file has a
// status, writes that status as the upstream operator did.
func createCR(ctx context.Context, e *env, mapper meta.RESTMapper, cr *unstructured.Unstructured, ns string) (*unstructured.Unstructured, error) {
	ri, err := resourceOf(e, mapper, cr, ns)
	if err != nil {
		return nil, err
	}
	cr.SetUID("")
	status, hasStatus := cr.Object["status"]
	created, err := ri.Create(ctx, cr, metav1.CreateOptions{})
	if err != nil || !hasStatus {
		return created, err
	}
	created.Object["status"] = status
	return ri.UpdateStatus(ctx, created, metav1.UpdateOptions{})
}

// resourceOf is the client of an object's resource, with the object's namespace set to ns if
// the resource is namespaced (and cleared if not).
func resourceOf(e *env, mapper meta.RESTMapper, u *unstructured.Unstructured, ns string) (dynamic.ResourceInterface, error) {
	gvk := u.GroupVersionKind()
	m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", gvk, err)
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace {
		u.SetNamespace("")
		return e.dyn.Resource(m.Resource), nil
	}
	u.SetNamespace(ns)
	return e.dyn.Resource(m.Resource).Namespace(ns), nil
}

// createUpstreamObjects creates the objects of a case's objects.yaml (namespaced ones in ns),
// owned by the CR of that UID, as the upstream operator made them: CRDs first, so that the
// upstream operator's own kinds exist before anything else.
func createUpstreamObjects(ctx context.Context, e *env, mapper meta.RESTMapper, c switchCase, ns string, owner types.UID) ([]upstreamObject, error) {
	objs, err := switching.ReadObjects(filepath.Join(c.dir, "objects.yaml"))
	if err != nil {
		return nil, err
	}
	var out []upstreamObject
	for _, u := range objs {
		switching.OwnedBy(u, owner)
		ri, err := resourceOf(e, mapper, u, ns)
		if err != nil {
			return nil, err
		}
		created, err := ri.Create(ctx, u, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) && installedByDeploy(e, u.GetKind(), u.GetName()) != nil {
			// The suite installed deploy/ first (the CRs need its CRDs); upstream's object was
			// there before it on a cluster that switches: put upstream's in its place, and the
			// README's step 3 (install-current) applies deploy/'s over it.
			if err := ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{}); err != nil {
				return nil, fmt.Errorf("delete deploy/'s %s %s to put upstream's first: %w", u.GetKind(), u.GetName(), err)
			}
			created, err = ri.Create(ctx, u, metav1.CreateOptions{})
		}
		if err != nil {
			return nil, fmt.Errorf("create %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		gvk := u.GroupVersionKind()
		m, _ := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		out = append(out, upstreamObject{operator: c.operator, gvr: m.Resource, kind: gvk.Kind, ns: u.GetNamespace(), name: u.GetName(), uid: created.GetUID()})
	}
	return out, nil
}

// readmeNames says whether the README section of that heading names the object (in backquotes).
func readmeNames(t *testing.T, heading, name string) bool {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, found := strings.Cut(string(data), "\n## "+heading+"\n")
	if !found {
		t.Fatalf("README.md has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return strings.Contains(section, "`"+name+"`")
}

// referencedSecrets are Secrets with a fake value for every key the CR reads: a batch gateway's
// spec.secretRef (its credential keys), any secretKeyRef.
func referencedSecrets(cr *unstructured.Unstructured, ns string) []*unstructured.Unstructured {
	keys := map[string]map[string]string{}
	if name, _, _ := unstructured.NestedString(cr.Object, "spec", "secretRef", "name"); name != "" {
		keys[name] = map[string]string{"redis-url": "redis://redis.invalid:6379/0", "postgresql-url": "postgresql://u:p@postgres.invalid:5432/db", "s3-secret-access-key": "switching-fake"}
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["secretKeyRef"].(map[string]any); ok {
				name, _ := ref["name"].(string)
				key, _ := ref["key"].(string)
				if keys[name] == nil {
					keys[name] = map[string]string{}
				}
				keys[name][key] = "switching-fake"
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(cr.Object["spec"])
	var out []*unstructured.Unstructured
	for name, data := range keys {
		out = append(out, mustUnstructured(&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			StringData: data,
		}))
	}
	return out
}

// outcomeOf says what became of an upstream object: adopted (its UID kept and this operator's
// label on it), installed (its UID kept, what it grants now deploy/'s: the LWS controller's RBAC,
// which kubectl apply -f deploy/ takes over), replaced (deleted and made anew), deleted, or left
// (there, unmanaged).
func (e *env) outcomeOf(ctx context.Context, t *testing.T, o upstreamObject) string {
	u, err := e.dyn.Resource(o.gvr).Namespace(o.ns).Get(ctx, o.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "deleted"
	case err != nil:
		t.Fatal(err)
	case u.GetUID() != o.uid:
		return "replaced"
	case u.GetLabels()["app.kubernetes.io/managed-by"] == "llm-infra-operator":
		return "adopted"
	}
	if want := installedByDeploy(e, o.kind, o.name); want != nil {
		same := true
		for _, field := range []string{"rules", "roleRef", "subjects"} {
			same = same && apiequality.Semantic.DeepEqual(u.Object[field], want.Object[field])
		}
		if same && len(u.GetOwnerReferences()) == 0 {
			return "installed"
		}
	}
	return "left"
}

// installedByDeploy returns the cluster-scoped object of that kind and name that deploy/ installs
// (the LWS controller's RBAC, in the working tree's deploy/), or nil.
func installedByDeploy(e *env, kind, name string) *unstructured.Unstructured {
	e.deployOnce.Do(func() {
		files, _ := filepath.Glob("../../deploy/*.yaml")
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := decoder.Decode(&u.Object); err != nil {
					break
				}
				if len(u.Object) != 0 && u.GetNamespace() == "" && strings.HasPrefix(u.GetAPIVersion(), "rbac.authorization.k8s.io/") {
					e.deployObjects = append(e.deployObjects, u)
				}
			}
		}
	})
	for _, u := range e.deployObjects {
		if u.GetKind() == kind && u.GetName() == name {
			return u
		}
	}
	return nil
}

// waitRolledOut waits until every Deployment of the suite's namespaces has rolled out.
func (e *env) waitRolledOut(ctx context.Context, t *testing.T) {
	t.Helper()
	var pending []string
	err := wait.PollUntilContextTimeout(ctx, poll, readyTimeout, true, func(ctx context.Context) (bool, error) {
		var err error
		pending, err = e.deploymentsRollingOut(ctx)
		return err == nil && len(pending) == 0, err
	})
	if err != nil {
		t.Fatalf("upstream's Deployments not rolled out (%v): %v", err, pending)
	}
}
