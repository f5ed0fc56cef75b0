// Package admission is the reliability suite's bad-input check against a real API server: every
// invalid CR of every CRD's admission table (pkg/apis/*/*/testcases, the tables the API
// packages' unit tests and the e2e suite use too) is sent as a server-side dry-run create with
// strict field validation to the cluster of $KUBECONFIG, which must have the CRDs installed
// (hack/lib/operator.sh install). Each must be rejected, and the rejection must say what to fix:
// a case's message is useful when it holds every error the case names (the field path with the
// allowed values or limit, or the rule's message). The valid CRs of the tables must be
// accepted. The update cases (changes to a stored CR, for the rules that compare with it) are
// sent as dry-run updates of a CR stored for them, and judged alike; those for the rules that
// read the status (a GPU holding an allocation) once its status is set as the operator writes
// it. It writes the suite "admission" (test/reliability/result) to -out.
//
// First, every CRD of deploy/ (00_*.crd.yaml) must be served as the file says: Established, its
// names accepted, each version as written (an older API server drops what it does not know),
// and it must have a table here. The tables' texts are the newest Kubernetes release's; on an
// older release of the local cluster's matrix (hack/lib/kube-version.sh: make
// test-admission-oldest) the verdicts must be the same, and a text that release words
// differently is expected in its wording (test/internal/live.Wordings), counted apart.
// Every case's verdict and message goes to -out/admission-verdicts/<server version>.json, to
// compare releases.
//
//	go test ./test/reliability/admission -count=1 -args -out=DIR
package admission

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	lwscases "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
	"github.com/llm-infra/llm-infra-operator/test/reliability/result"
)

var out = flag.String("out", "", "directory to write admission.json into (required)")

// namespace holds the namespaced CRs of the dry runs (nothing is stored in it).
const namespace = "reliability-admission"

// table is one CRD's admission table.
type table struct {
	kind               string
	gvr                schema.GroupVersionResource
	namespaced         bool
	rejected, accepted []lwscases.Case
	// base and updates: changes to a stored base CR, sent as updates (registry Updates);
	// statusUpdates, the same once the stored CR's status is status (registry
	// UpdatesWithStatus).
	base          string
	updates       []lwscases.Case
	status        string
	statusUpdates []lwscases.Case
}

// tables are every CRD the operator serves, each with its table: from the registry.
var tables = func() []table {
	var out []table
	for _, r := range operands.All() {
		out = append(out, table{kind: r.GVK.Kind, gvr: r.GVR(), namespaced: r.Namespaced,
			rejected: r.Admission.Rejected, accepted: r.Admission.Accepted,
			base: r.Admission.Base, updates: r.Admission.Updates,
			status: r.Admission.Status, statusUpdates: r.Admission.UpdatesWithStatus})
	}
	return out
}()

// strictDryRun stores nothing and rejects unknown fields as kubectl does.
var strictDryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}

func TestInvalidCRsAreRejectedWithUsefulMessages(t *testing.T) {
	if *out == "" {
		t.Fatal("-out=DIR is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	client, kube := clients(t)
	server, err := kube.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	minor, err := live.ServerMinor(server.Major, server.Minor)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("API server %s", server.GitVersion)
	ensureNamespace(ctx, t, kube)

	suite := result.Suite{Name: "admission", Passed: true}
	crds, served := checkCRDs(ctx, &suite, client)
	var tried, rejected, useful, reworded, valid, accepted int
	var verdicts []verdict
	for _, tb := range tables {
		var c counts
		for _, tc := range tb.rejected {
			c.tried++
			err := create(ctx, client, tb, tc)
			verdicts = append(verdicts, verdictOf(tb.kind, tc, err))
			ok, older, detail := judgeRejected(tc, err, minor)
			if older {
				c.reworded++
				t.Logf("%s %q: the message is in %s's wording: %v", tb.kind, tc.Name, server.GitVersion, err)
			}
			switch {
			case ok:
				c.rejected++
				c.useful++
			case detail == notRejected:
				suite.Fail("%s %q was accepted", tb.kind, tc.Name)
			case err != nil && (apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)):
				c.rejected++
				suite.Fail("%s %q: rejected, but %s", tb.kind, tc.Name, detail)
			default:
				suite.Fail("%s %q: %s", tb.kind, tc.Name, detail)
			}
		}
		for _, tc := range tb.accepted {
			c.valid++
			// A dry-run create of a name that exists (the singleton "cluster") passes admission
			// and then fails on the name alone.
			err := create(ctx, client, tb, tc)
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
			verdicts = append(verdicts, verdictOf(tb.kind, tc, err))
			if err != nil {
				suite.Fail("%s %q (valid) was rejected: %v", tb.kind, tc.Name, err)
				continue
			}
			c.accepted++
		}
		if len(tb.updates) > 0 || len(tb.statusUpdates) > 0 {
			stored, err := storeBase(ctx, client, tb)
			if err != nil {
				suite.Fail("%s: storing the base CR for the update cases: %v", tb.kind, err)
			}
			judgeUpdate := func(prefix string, tc lwscases.Case, err error) {
				v := verdictOf(tb.kind, tc, err)
				v.Case = prefix + tc.Name
				verdicts = append(verdicts, v)
				if len(tc.Errors) == 0 {
					c.valid++
					if err != nil {
						suite.Fail("%s %s%q (valid) was rejected: %v", tb.kind, prefix, tc.Name, err)
						return
					}
					c.accepted++
					return
				}
				c.tried++
				ok, older, detail := judgeRejected(tc, err, minor)
				if older {
					c.reworded++
				}
				if ok {
					c.rejected++
					c.useful++
				} else {
					suite.Fail("%s %s%q: %s", tb.kind, prefix, tc.Name, detail)
				}
			}
			for _, tc := range tb.updates {
				if stored == nil {
					break
				}
				judgeUpdate("update: ", tc, update(ctx, client, tb, stored, tc))
			}
			if stored != nil && len(tb.statusUpdates) > 0 {
				withStatus, err := setStatus(ctx, client, tb, stored)
				if err != nil {
					suite.Fail("%s: setting the stored CR's status for the update cases: %v", tb.kind, err)
				}
				for _, tc := range tb.statusUpdates {
					if withStatus == nil {
						break
					}
					judgeUpdate("update with status "+tb.status+": ", tc, update(ctx, client, tb, withStatus, tc))
				}
			}
			if stored != nil {
				if err := client.Resource(tb.gvr).Namespace(namespace).Delete(ctx, stored.GetName(), metav1.DeleteOptions{}); err != nil {
					suite.Fail("%s: deleting the stored base CR: %v", tb.kind, err)
				}
			}
		}
		t.Logf("%s: %d invalid CRs tried, %d rejected, %d with a useful message (%d in %s's wording); %d valid CRs, %d accepted",
			tb.kind, c.tried, c.rejected, c.useful, c.reworded, server.GitVersion, c.valid, c.accepted)
		suite.Add("CRs tried ("+tb.kind+")", float64(c.tried), "")
		suite.Add("rejected ("+tb.kind+")", float64(c.rejected), "")
		suite.Add("rejected with a useful message ("+tb.kind+")", float64(c.useful), "")
		suite.Add("of which in an older release's wording ("+tb.kind+")", float64(c.reworded), "")
		suite.Add("valid CRs tried ("+tb.kind+")", float64(c.valid), "")
		suite.Add("valid CRs accepted ("+tb.kind+")", float64(c.accepted), "")
		tried, rejected, useful, valid, accepted = tried+c.tried, rejected+c.rejected, useful+c.useful, valid+c.valid, accepted+c.accepted
		reworded += c.reworded
	}
	suite.Metrics = append([]result.Metric{
		{Name: "Kubernetes minor version of the API server", Value: float64(minor)},
		{Name: "CRDs in deploy/", Value: float64(crds)},
		{Name: "CRDs served as written", Value: float64(served)},
		{Name: "CRs tried", Value: float64(tried)},
		{Name: "rejected", Value: float64(rejected)},
		{Name: "rejected with a useful message", Value: float64(useful)},
		{Name: "of which in an older release's wording", Value: float64(reworded)},
		{Name: "valid CRs tried", Value: float64(valid)},
		{Name: "valid CRs accepted", Value: float64(accepted)},
	}, suite.Metrics...)
	if err := suite.Write(*out); err != nil {
		t.Fatal(err)
	}
	if err := writeVerdicts(filepath.Join(*out, "admission-verdicts", server.GitVersion+".json"), verdicts); err != nil {
		t.Fatal(err)
	}
	for _, f := range suite.Failures {
		t.Error(f)
	}
	t.Logf("%d CRDs in deploy/, %d served as written; %d invalid CRs tried, %d rejected, %d with a useful message (%d in %s's wording); %d valid CRs, %d accepted",
		crds, served, tried, rejected, useful, reworded, server.GitVersion, valid, accepted)
}

type counts struct{ tried, rejected, useful, reworded, valid, accepted int }

// crdFiles are the operator's CRDs, as installed (hack/lib/operator.sh install).
const crdFiles = "../../../deploy/00_*.crd.yaml"

// checkCRDs checks every CRD of deploy/: the API server serves it (Established, names accepted)
// with every version exactly as the file writes it, and this suite has its kind's table. It
// returns how many CRDs there are and how many are served as written.
func checkCRDs(ctx context.Context, suite *result.Suite, client dynamic.Interface) (int, int) {
	files, err := filepath.Glob(crdFiles)
	if err != nil || len(files) == 0 {
		suite.Fail("no CRDs found as %s (%v)", crdFiles, err)
		return 0, 0
	}
	kinds := map[string]bool{}
	for _, tb := range tables {
		kinds[tb.kind] = true
	}
	gvr := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	served := 0
	for _, f := range files {
		name := filepath.Base(f)
		raw, err := os.ReadFile(f)
		if err != nil {
			suite.Fail("%s: %v", name, err)
			continue
		}
		var want unstructured.Unstructured
		if err := yaml.Unmarshal(raw, &want.Object); err != nil {
			suite.Fail("%s: %v", name, err)
			continue
		}
		kind, _, _ := unstructured.NestedString(want.Object, "spec", "names", "kind")
		if !kinds[kind] {
			suite.Fail("%s: the kind %s has no admission table in test/reliability/admission", name, kind)
		}
		got, err := client.Resource(gvr).Get(ctx, want.GetName(), metav1.GetOptions{})
		if err != nil {
			suite.Fail("%s: not installed: %v", name, err)
			continue
		}
		if problem := servedAsWritten(want.Object, got.Object); problem != "" {
			suite.Fail("%s: %s", name, problem)
			continue
		}
		served++
	}
	return len(files), served
}

// servedAsWritten says what is wrong with the served CRD got, written as want: a condition
// Established or NamesAccepted not True, or a version served otherwise than written (both are
// compared as JSON values, as the API server returns them).
func servedAsWritten(want, got map[string]any) string {
	conditions, _, _ := unstructured.NestedSlice(got, "status", "conditions")
	status := map[string]string{}
	for _, c := range conditions {
		if c, ok := c.(map[string]any); ok {
			status[fmt.Sprint(c["type"])] = fmt.Sprintf("%v (%v)", c["status"], c["message"])
		}
	}
	for _, cond := range []string{"Established", "NamesAccepted"} {
		if !strings.HasPrefix(status[cond], "True ") {
			return fmt.Sprintf("condition %s is %q", cond, status[cond])
		}
	}
	wantVersions, _, _ := unstructured.NestedSlice(want, "spec", "versions")
	gotVersions, _, _ := unstructured.NestedSlice(got, "spec", "versions")
	if len(wantVersions) != len(gotVersions) {
		return fmt.Sprintf("%d versions served, %d written", len(gotVersions), len(wantVersions))
	}
	// JSON round trips make the file's numbers and the server's the same types.
	for i := range wantVersions {
		var w, g any
		if err := roundTrip(wantVersions[i], &w); err != nil {
			return err.Error()
		}
		if err := roundTrip(gotVersions[i], &g); err != nil {
			return err.Error()
		}
		if !reflect.DeepEqual(w, g) {
			return fmt.Sprintf("version %d is not served as written: the API server dropped or changed a field: %s", i, firstDifference("", w, g))
		}
	}
	return ""
}

func roundTrip(in any, out *any) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

// firstDifference is the path of the first place where want and got differ, and both values.
func firstDifference(path string, want, got any) string {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		for k, wv := range wm {
			if gv, ok := gm[k]; !ok {
				return path + "." + k + " is missing"
			} else if !reflect.DeepEqual(wv, gv) {
				return firstDifference(path+"."+k, wv, gv)
			}
		}
		for k := range gm {
			if _, ok := wm[k]; !ok {
				return path + "." + k + " was added"
			}
		}
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		for i := range wl {
			if !reflect.DeepEqual(wl[i], gl[i]) {
				return firstDifference(fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i])
			}
		}
	}
	return fmt.Sprintf("%s: written %v, served %v", path, want, got)
}

// verdict is what the API server said about one case.
type verdict struct {
	Kind    string `json:"kind"`
	Case    string `json:"case"`
	Want    string `json:"want"`
	Got     string `json:"got"`
	Message string `json:"message,omitempty"`
}

func verdictOf(kind string, c lwscases.Case, err error) verdict {
	v := verdict{Kind: kind, Case: c.Name, Want: "accepted", Got: "accepted"}
	if len(c.Errors) > 0 {
		v.Want = "rejected"
	}
	switch {
	case err == nil:
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		v.Got, v.Message = "rejected", err.Error()
	default:
		v.Got, v.Message = "failed", err.Error()
	}
	return v
}

func writeVerdicts(path string, verdicts []verdict) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(verdicts, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

const notRejected = "accepted"

// judgeRejected says whether err is the rejection case c expects: a 422 Invalid or 400
// BadRequest (strict field validation) whose message holds every error c names, as an API server
// of Kubernetes 1.<minor> words it (older: some error was expected in an older release's
// wording). A case that names no error, or only that the CEL rules were not run, could not tell
// a user what to fix, so it never counts as useful.
func judgeRejected(c lwscases.Case, err error, minor int) (ok, older bool, detail string) {
	if err == nil {
		return false, false, notRejected
	}
	if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		return false, false, fmt.Sprintf("failed for another reason than validation: %v", err)
	}
	if !saysWhatToFix(c) {
		return false, false, "the table names no error that says what to fix"
	}
	var missing []string
	for _, want := range c.Errors {
		server := live.ForServer(minor, want)
		older = older || server != want
		if !strings.Contains(err.Error(), server) {
			missing = append(missing, server)
		}
	}
	if len(missing) > 0 {
		return false, older, fmt.Sprintf("the message lacks %q; it says: %v", missing, err)
	}
	return true, older, ""
}

// saysWhatToFix is true when c names an error beyond "some rules were not checked".
func saysWhatToFix(c lwscases.Case) bool {
	for _, e := range c.Errors {
		if e != lwscases.RulesNotChecked {
			return true
		}
	}
	return false
}

func create(ctx context.Context, client dynamic.Interface, tb table, c lwscases.Case) error {
	obj, err := c.Object()
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: obj}
	if !tb.namespaced {
		_, err = client.Resource(tb.gvr).Create(ctx, u, strictDryRun)
		return err
	}
	u.SetNamespace(namespace)
	_, err = client.Resource(tb.gvr).Namespace(namespace).Create(ctx, u, strictDryRun)
	return err
}

// storeBase creates (for real: an update needs a stored object) the table's base CR under a
// name of this suite's, in its namespace. Nothing runs the operator here, so nothing acts on it.
func storeBase(ctx context.Context, client dynamic.Interface, tb table) (*unstructured.Unstructured, error) {
	if !tb.namespaced {
		return nil, fmt.Errorf("update cases of a cluster-scoped kind are not supported")
	}
	obj, err := lwscases.Case{Name: "base", Base: tb.base}.Object()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	u.SetNamespace(namespace)
	u.SetName("admission-updates")
	return client.Resource(tb.gvr).Namespace(namespace).Create(ctx, u, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
}

// setStatus writes the table's status to the stored CR through the status subresource, as the
// operator does, and returns the CR as stored then.
func setStatus(ctx context.Context, client dynamic.Interface, tb table, stored *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var status map[string]any
	if err := yaml.Unmarshal([]byte(tb.status), &status); err != nil {
		return nil, err
	}
	withStatus := stored.DeepCopy()
	if err := unstructured.SetNestedMap(withStatus.Object, status, "status"); err != nil {
		return nil, err
	}
	return client.Resource(tb.gvr).Namespace(namespace).UpdateStatus(ctx, withStatus, metav1.UpdateOptions{FieldValidation: metav1.FieldValidationStrict})
}

// update sends the stored object with c's Patch applied as a dry-run update with strict field
// validation.
func update(ctx context.Context, client dynamic.Interface, tb table, stored *unstructured.Unstructured, c lwscases.Case) error {
	raw, err := stored.MarshalJSON()
	if err != nil {
		return err
	}
	obj, err := lwscases.Case{Name: c.Name, Base: string(raw), Patch: c.Patch}.Object()
	if err != nil {
		return err
	}
	_, err = client.Resource(tb.gvr).Namespace(namespace).Update(ctx, &unstructured.Unstructured{Object: obj},
		metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict})
	return err
}

func clients(t *testing.T) (dynamic.Interface, kubernetes.Interface) {
	t.Helper()
	config, err := live.ConfigFromEnv("a cluster with the operator's CRDs (hack/local-cluster.sh up, then hack/lib/operator.sh install)")
	if err != nil {
		t.Fatal(err)
	}
	return dynamic.NewForConfigOrDie(config), kubernetes.NewForConfigOrDie(config)
}

func ensureNamespace(ctx context.Context, t *testing.T, kube kubernetes.Interface) {
	t.Helper()
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}
