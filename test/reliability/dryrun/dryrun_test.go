// Package dryrun is the reliability suite's check that whatever the API server admits, the
// operator can create: every CR of the corpus (each admission table's valid CRs, the golden
// CRs, and name variants at the edges of what a name may be) is first sent as a server-side
// dry-run create to the cluster of $KUBECONFIG; each CR it admits, as it would be stored
// (defaults applied), is rendered by its operand (its registration's Render: what a sync
// applies), and every rendered object
// is sent as a server-side dry-run create (a dry-run apply when an object of that name exists):
// each must pass. A kind the cluster does not serve counts as a failure: the cluster needs the
// operator's CRDs (hack/lib/operator.sh install), the optional ones (hack/optional-crds.sh
// install all) and cert-manager's. It writes the suite "dryrun" (test/reliability/result) to
// -out.
//
//	go test ./test/reliability/dryrun -count=1 -args -out=DIR
package dryrun

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	batchcases "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1/testcases"
	lwscases "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1/testcases"
	registered "github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
	"github.com/llm-infra/llm-infra-operator/test/reliability/result"
)

var out = flag.String("out", "", "directory to write dryrun.json into (required)")

const (
	// namespace holds the namespaced CRs and their objects (nothing is stored).
	namespace = "reliability-dryrun"
	// lwsNamespace is the operator's namespace, where the LeaderWorkerSet controller runs.
	lwsNamespace = "reliability-dryrun-lws"
	fieldManager = "reliability-dryrun"
)

// images are the images the renders are given, one per registered image.
func image(env string) string { return "registry.example/" + strings.ToLower(env) + ":v0" }

// operand is one CRD, its corpus and how its operand renders an admitted CR.
type operand struct {
	kind       string
	gvr        schema.GroupVersionResource
	namespaced bool
	corpus     func(t *testing.T) []lwscases.Case
	render     func(stored *unstructured.Unstructured) ([]runtime.Object, error)
}

// operands are every registered kind: its admission table's valid CRs, its golden CRs and
// names at the edges (namespaced kinds), rendered as a sync renders them.
var operands = func() []operand {
	var out []operand
	for _, r := range registered.All() {
		r := r
		out = append(out, operand{
			kind: r.GVK.Kind, gvr: r.GVR(), namespaced: r.Namespaced,
			corpus: func(t *testing.T) []lwscases.Case {
				cases := slices.Clone(r.Admission.Accepted)
				if r.Admission.Golden != "" {
					cases = append(golden(t, r.Admission.Golden, r.GVK.Kind, r.Admission.GoldenRefused), cases...)
				}
				if !r.Namespaced {
					return cases
				}
				return withNames(cases, r.Admission.Base)
			},
			render: func(stored *unstructured.Unstructured) ([]runtime.Object, error) {
				ns := namespace
				if !r.Namespaced {
					ns = lwsNamespace
				}
				return r.Render(stored, registry.RenderEnv{Namespace: ns, Image: image})
			},
		})
	}
	return out
}()

// names are CR names at the edges of a Kubernetes object name (a DNS subdomain): the longest
// label, the longest name, a leading digit, dots. Each is tried on the kind's base CR; the
// API server must either reject the name or admit a CR whose objects can all be created.
var names = []string{
	strings.Repeat("n", 63),
	strings.Repeat("n", 253),
	"0gw",
	"gw.v1",
	"batch-gateway-async-processor",
}

// withNames adds the names variants of base to cases.
func withNames(cases []lwscases.Case, base string) []lwscases.Case {
	for _, name := range names {
		cases = append(cases, lwscases.Case{Name: "name " + name, Base: base, Patch: fmt.Sprintf("{metadata: {name: %q}}", name)})
	}
	return cases
}

// golden are the golden CRs of kind in test/golden/<operator>, those the API refuses by design
// (refused) with the errors it must return.
func golden(t *testing.T, operator, kind string, refused map[string][]string) []lwscases.Case {
	t.Helper()
	cases, err := batchcases.GoldenOf("../../golden/"+operator, kind, refused)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

type counts struct{ crs, refused, admitted, objects, passed int }

func TestRenderedObjectsPassDryRun(t *testing.T) {
	if *out == "" {
		t.Fatal("-out=DIR is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	c := connect(t)
	for _, ns := range []string{namespace, lwsNamespace} {
		_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}

	suite := result.Suite{Name: "dryrun", Passed: true}
	var total counts
	for _, op := range operands {
		var n counts
		for _, tc := range op.corpus(t) {
			n.crs++
			stored, err := c.admit(ctx, op, tc)
			if len(tc.Errors) > 0 {
				if missing := missingErrors(tc.Errors, err); len(missing) > 0 {
					suite.Fail("%s %q: must be refused at admission with %q; got %v", op.kind, tc.Name, missing, err)
					continue
				}
				t.Logf("%s %q: refused at admission, as intended: %v", op.kind, tc.Name, err)
				n.refused++
				continue
			}
			if err != nil {
				if strings.HasPrefix(tc.Name, "name ") && (apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)) {
					t.Logf("%s %q: rejected at admission: %v", op.kind, tc.Name, err)
					continue
				}
				suite.Fail("%s %q: the CR: %v", op.kind, tc.Name, err)
				continue
			}
			n.admitted++
			objs, err := op.render(stored)
			if err != nil {
				suite.Fail("%s %q: admitted, but does not render: %v", op.kind, tc.Name, err)
				continue
			}
			for _, obj := range objs {
				n.objects++
				what, err := c.dryRun(ctx, obj)
				if err != nil {
					suite.Fail("%s %q: %s: %v", op.kind, tc.Name, what, err)
					continue
				}
				n.passed++
			}
		}
		t.Logf("%s: %d CRs, %d refused as intended, %d admitted and rendered, %d objects tried, %d passed", op.kind, n.crs, n.refused, n.admitted, n.objects, n.passed)
		suite.Add("CRs admitted and rendered ("+op.kind+")", float64(n.admitted), "")
		suite.Add("objects tried ("+op.kind+")", float64(n.objects), "")
		suite.Add("passed ("+op.kind+")", float64(n.passed), "")
		total = counts{total.crs + n.crs, total.refused + n.refused, total.admitted + n.admitted, total.objects + n.objects, total.passed + n.passed}
	}
	suite.Metrics = append([]result.Metric{
		{Name: "CRs tried", Value: float64(total.crs)},
		{Name: "CRs refused at admission as intended", Value: float64(total.refused)},
		{Name: "CRs admitted and rendered", Value: float64(total.admitted)},
		{Name: "objects tried", Value: float64(total.objects)},
		{Name: "passed", Value: float64(total.passed)},
	}, suite.Metrics...)
	if err := suite.Write(*out); err != nil {
		t.Fatal(err)
	}
	for _, f := range suite.Failures {
		t.Error(f)
	}
	t.Logf("%d CRs, %d refused as intended, %d admitted and rendered, %d objects tried, %d passed", total.crs, total.refused, total.admitted, total.objects, total.passed)
}

// missingErrors are those of want (substrings of the API server's errors) that err does not
// contain; all of want when err is nil or is no validation error.
func missingErrors(want []string, err error) []string {
	if err == nil || !apierrors.IsInvalid(err) {
		return want
	}
	var missing []string
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			missing = append(missing, w)
		}
	}
	return missing
}

type cluster struct {
	kube    kubernetes.Interface
	dynamic dynamic.Interface
	mapper  meta.RESTMapper
}

func connect(t *testing.T) cluster {
	t.Helper()
	config, err := live.ConfigFromEnv("a cluster with the operator's CRDs, the optional ones and cert-manager (hack/local-cluster.sh up, hack/lib/operator.sh install, hack/optional-crds.sh install all)")
	if err != nil {
		t.Fatal(err)
	}
	disc := discovery.NewDiscoveryClientForConfigOrDie(config)
	return cluster{
		kube:    kubernetes.NewForConfigOrDie(config),
		dynamic: dynamic.NewForConfigOrDie(config),
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
	}
}

// admit dry-run creates a case's CR and returns it as the API server would store it. The
// singleton LeaderWorkerSetOperator may exist: the case's own object then stands for it.
func (c cluster) admit(ctx context.Context, op operand, tc lwscases.Case) (*unstructured.Unstructured, error) {
	obj, err := tc.Object()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}
	if !op.namespaced {
		stored, err := c.dynamic.Resource(op.gvr).Create(ctx, u, opts)
		if apierrors.IsAlreadyExists(err) {
			return u, nil
		}
		return stored, err
	}
	u.SetNamespace(namespace)
	return c.dynamic.Resource(op.gvr).Namespace(namespace).Create(ctx, u, opts)
}

// dryRun sends one rendered object as a dry-run create, or a dry-run apply when an object of
// its name exists. what names the object.
func (c cluster) dryRun(ctx context.Context, obj runtime.Object) (string, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj), err
	}
	u := &unstructured.Unstructured{Object: content}
	gvk := u.GroupVersionKind()
	what := fmt.Sprintf("%s %s", gvk.Kind, qualified(u.GetNamespace(), u.GetName()))
	if gvk.Kind == "" || gvk.Version == "" {
		return what, fmt.Errorf("rendered without apiVersion and kind")
	}
	mapping, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return what, fmt.Errorf("the cluster does not serve %s (install its CRD: hack/optional-crds.sh install all, cert-manager): %w", gvk, err)
	}
	var client dynamic.ResourceInterface = c.dynamic.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		client = c.dynamic.Resource(mapping.Resource).Namespace(u.GetNamespace())
	}
	_, err = client.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict, FieldManager: fieldManager})
	if apierrors.IsAlreadyExists(err) {
		_, err = client.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: fieldManager, Force: true})
	}
	return what, err
}

func qualified(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
