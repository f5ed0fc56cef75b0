package upgrade

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/llm-infra/llm-infra-operator/test/internal/switching"
)

// The switch from openshift/lws-operator, as README.md's section says it (test/internal/switching,
// shared with the switch under load of test/operands).
const (
	lwsReadmeSection     = switching.LWSReadmeSection
	lwsUpstreamNamespace = switching.LWSUpstreamNamespace
	lwsControllerName    = switching.LWSControllerName
	lwsWebhookService    = switching.LWSWebhookService
	lwsCRDName           = switching.LWSCRDName
	// namespaceGoneTimeout: step 4's namespace deletion, on a busy machine.
	namespaceGoneTimeout = 5 * time.Minute
)

var lwsCRDs = switching.LWSCRDs

var (
	crdGVR               = switching.CRDs
	mutatingWebhooksGVR  = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"}
	validatingWebhookGVR = schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"}
	clusterRoleBindings  = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}
)

// lwsSwitchCase is LeaderWorkerSetOperator `cluster` and what openshift/lws-operator made for
// it in its namespace (testdata/switching/lws-operator/README.md). Its operator is gone (it was
// never started here), its operand lws-controller-manager keeps running; step 1 runs before
// this operator starts (step 2, uninstalling upstream's operator, is its absence; step 3 is
// the start), step 4 once the CR is Available.
var lwsSwitchCase = switchCase{
	operator:    "lws-operator",
	dir:         "../../" + switching.LWSOperatorTestdata,
	kind:        lwsKind,
	namespace:   lwsUpstreamNamespace,
	before:      detachLWSCRD,
	after:       lwsAfterSwitch,
	userDeletes: lwsUpstreamNamespace,
}

// lwsTimeline is every state of the CR's Available condition from before the switch to the end.
var lwsTimeline = &availability{}

// detachLWSCRD is the README's step 1, the JSON patch it gives to each of the three CRDs, and
// starts the CR's timeline.
func detachLWSCRD(ctx context.Context, e *env) error {
	if err := lwsTimeline.watch(ctx, e); err != nil {
		return err
	}
	return switching.DetachLWSCRDs(ctx, e.dyn)
}

// lwsSwitch is what the switch from openshift/lws-operator came to, for the result file.
type lwsSwitch struct {
	// SecondsToAvailable: from this operator's start to the CR's first Available=True of a
	// current observedGeneration (this operator's, not upstream's).
	SecondsToAvailable float64
	// FlapsInSwitch: Available leaving upstream's True before this operator's first True;
	// FlapsAfter: leaving True after it (a failure).
	FlapsInSwitch, FlapsAfter []string
	// ControllerRevision: the revision of this operator's lws-controller-manager (1: rolled
	// out once).
	ControllerRevision int
	// SecondsStep4: deleting the old Deployment and namespace until the namespace was gone.
	SecondsStep4 float64
}

// lwsAfterSwitch checks the switch once everything settled, runs the README's step 4 (delete
// the old controller, then its namespace) and checks again: the CRDs kept (same UID, no owner
// reference), the webhooks and the conversion served by this operator's Service, the CR
// Available throughout.
func lwsAfterSwitch(ctx context.Context, t *testing.T, e *env, objects []upstreamObject) any {
	crdUIDs := map[string]types.UID{}
	for _, o := range objects {
		if o.kind == "CustomResourceDefinition" {
			crdUIDs[o.name] = o.uid
		}
	}
	res := &lwsSwitch{}
	check := func(when string) {
		for _, c := range lwsChecks(e, crdUIDs) {
			if err := c.check(ctx); err != nil {
				t.Errorf("LeaderWorkerSet switch, %s: %s: %v", when, c.what, err)
			}
		}
	}
	check("after the switch")
	if d, err := e.kube.AppsV1().Deployments(e.operatorNS).Get(ctx, lwsControllerName, metav1.GetOptions{}); err != nil {
		t.Errorf("this operator's %s: %v", lwsControllerName, err)
	} else {
		res.ControllerRevision = revision(d)
		if !rolledOut(d) || res.ControllerRevision != 1 {
			t.Errorf("this operator's %s/%s: rolled out %v, revision %d (want rolled out once)", d.Namespace, d.Name, rolledOut(d), res.ControllerRevision)
		}
	}

	// Step 4.
	start := time.Now()
	if err := switching.DeleteLWSUpstream(ctx, e.kube, poll, namespaceGoneTimeout); err != nil {
		t.Error(err)
	}
	res.SecondsStep4 = time.Since(start).Seconds()
	t.Logf("LeaderWorkerSet switch, step 4: the old controller and namespace gone in %.0fs", res.SecondsStep4)
	e.waitSettled(ctx, t, "the operator after step 4", convergeTimeout, e.newStart)
	check("after step 4")

	lwsTimeline.stop()
	firstOwn, inSwitch, after := lwsTimeline.summary()
	res.FlapsInSwitch, res.FlapsAfter = inSwitch, after
	if firstOwn.IsZero() {
		t.Errorf("LeaderWorkerSetOperator cluster never reported this operator's Available=True")
	} else {
		res.SecondsToAvailable = firstOwn.Sub(e.newStart).Seconds()
	}
	for _, f := range after {
		t.Errorf("LeaderWorkerSetOperator cluster: Available left True after this operator reported it: %s", f)
	}
	t.Logf("LeaderWorkerSet switch: Available (this operator's) %.0fs after it started; Available left upstream's True in the switch: %v; controller revision %d",
		res.SecondsToAvailable, inSwitch, res.ControllerRevision)
	return res
}

// lwsCheck is one promise of the README's switching section.
type lwsCheck struct {
	what  string
	check func(ctx context.Context) error
}

func lwsChecks(e *env, crdUIDs map[string]types.UID) []lwsCheck {
	servedHere := func(u *unstructured.Unstructured, path ...string) error {
		ns, _, _ := unstructured.NestedString(u.Object, append(path, "service", "namespace")...)
		name, _, _ := unstructured.NestedString(u.Object, append(path, "service", "name")...)
		ca, _, _ := unstructured.NestedString(u.Object, append(path, "caBundle")...)
		if ns != e.operatorNS || name != lwsWebhookService || ca == "" {
			return fmt.Errorf("served by Service %s/%s (want %s/%s), CA bundle set: %v", ns, name, e.operatorNS, lwsWebhookService, ca != "")
		}
		return nil
	}
	get := func(ctx context.Context, gvr schema.GroupVersionResource, name string) (*unstructured.Unstructured, error) {
		return e.dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	}
	webhooks := func(gvr schema.GroupVersionResource, name string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			u, err := get(ctx, gvr, name)
			if err != nil {
				return err
			}
			hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			if len(hooks) == 0 {
				return fmt.Errorf("no webhooks")
			}
			for _, h := range hooks {
				m, _ := h.(map[string]any)
				if err := servedHere(&unstructured.Unstructured{Object: m}, "clientConfig"); err != nil {
					return fmt.Errorf("webhook %v: %w", m["name"], err)
				}
			}
			return nil
		}
	}
	kept := func(name string) lwsCheck {
		return lwsCheck{"CRD " + name + " kept, without an owner", func(ctx context.Context) error {
			u, err := get(ctx, crdGVR, name)
			switch {
			case err != nil:
				return err
			case u.GetUID() != crdUIDs[name]:
				return fmt.Errorf("UID %s, want %s: deleted and made anew, and every object of its kind with it", u.GetUID(), crdUIDs[name])
			case len(u.GetOwnerReferences()) > 0:
				return fmt.Errorf("owner references %v: deleting the CR would delete it and every object of its kind", u.GetOwnerReferences())
			}
			return nil
		}}
	}
	var checks []lwsCheck
	for _, name := range lwsCRDs {
		checks = append(checks, kept(name))
	}
	return append(checks, []lwsCheck{
		{"the CRD's conversion webhook", func(ctx context.Context) error {
			u, err := get(ctx, crdGVR, lwsCRDName)
			if err != nil {
				return err
			}
			return servedHere(u, "spec", "conversion", "webhook", "clientConfig")
		}},
		{"the mutating webhooks", webhooks(mutatingWebhooksGVR, "lws-mutating-webhook-configuration")},
		{"the validating webhooks", webhooks(validatingWebhookGVR, "lws-validating-webhook-configuration")},
		{"DisaggregatedSets validated (vdisaggregatedset.kb.io kept)", func(ctx context.Context) error {
			u, err := get(ctx, validatingWebhookGVR, "lws-validating-webhook-configuration")
			if err != nil {
				return err
			}
			hooks, _, _ := unstructured.NestedSlice(u.Object, "webhooks")
			for _, h := range hooks {
				if m, _ := h.(map[string]any); m["name"] == "vdisaggregatedset.kb.io" {
					return nil
				}
			}
			return fmt.Errorf("no webhook vdisaggregatedset.kb.io")
		}},
		{"lws-manager-role bound to this operator's controller", func(ctx context.Context) error {
			u, err := get(ctx, clusterRoleBindings, "lws-manager-rolebinding")
			if err != nil {
				return err
			}
			subjects, _, _ := unstructured.NestedSlice(u.Object, "subjects")
			for _, s := range subjects {
				if m, _ := s.(map[string]any); m["namespace"] != e.operatorNS {
					return fmt.Errorf("subject %v", m)
				}
			}
			return nil
		}},
		{"LeaderWorkerSetOperator cluster Available", func(ctx context.Context) error {
			u, err := e.dyn.Resource(lwsKind.gvr).Get(ctx, "cluster", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if cond, reason, current := crState(lwsKind, u); cond != metav1.ConditionTrue || !current {
				return fmt.Errorf("Available=%s (%s), observedGeneration current: %v", cond, reason, current)
			}
			return nil
		}},
	}...)
}

// availability records a cluster-scoped CR's Available condition on every change.
type availability struct {
	mu     sync.Mutex
	states []availabilityState
	cancel context.CancelFunc
	done   chan struct{}
}

type availabilityState struct {
	at      time.Time
	status  metav1.ConditionStatus
	reason  string
	current bool
}

func (a *availability) watch(ctx context.Context, e *env) error {
	ctx, a.cancel = context.WithCancel(ctx)
	w, err := e.dyn.Resource(lwsKind.gvr).Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "cluster").String()})
	if err != nil {
		return err
	}
	a.done = make(chan struct{})
	go func() {
		defer close(a.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			s := availabilityState{at: time.Now(), status: metav1.ConditionUnknown, reason: "CRDeleted"}
			if ev.Type != watch.Deleted {
				s.status, s.reason, s.current = crState(lwsKind, u)
			}
			a.mu.Lock()
			a.states = append(a.states, s)
			a.mu.Unlock()
		}
	}()
	return nil
}

func (a *availability) stop() {
	if a.cancel != nil {
		a.cancel()
		<-a.done
	}
}

// summary: when this operator first reported Available=True (a current observedGeneration,
// which upstream's status never has), and the transitions away from True before and after it.
func (a *availability) summary() (firstOwn time.Time, before, after []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	wasTrue := false
	for _, s := range a.states {
		if s.status != metav1.ConditionTrue && wasTrue {
			f := fmt.Sprintf("%s Available=%s (%s)", s.at.UTC().Format(time.TimeOnly), s.status, s.reason)
			if firstOwn.IsZero() {
				before = append(before, f)
			} else {
				after = append(after, f)
			}
		}
		wasTrue = s.status == metav1.ConditionTrue
		if wasTrue && s.current && firstOwn.IsZero() {
			firstOwn = s.at
		}
	}
	return firstOwn, before, after
}
