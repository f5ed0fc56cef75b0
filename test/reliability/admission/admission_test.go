// Package admission is the reliability suite's bad-input check against a real API server: every
// invalid CR of every CRD's admission table (pkg/apis/*/*/testcases, the tables the API
// packages' unit tests and the e2e suite use too) is sent as a server-side dry-run create with
// strict field validation to the cluster of $KUBECONFIG, which must have the CRDs installed
// (hack/lib/operator.sh install). Each must be rejected, and the rejection must say what to fix:
// a case's message is useful when it holds every error the case names (the field path with the
// allowed values or limit, or the rule's message). The valid CRs of the tables must be
// accepted. It writes the suite "admission" (test/reliability/result) to -out.
//
//	go test ./test/reliability/admission -count=1 -args -out=DIR
package admission

import (
	"context"
	"flag"
	"fmt"
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
}

// tables are every CRD the operator serves, each with its table: from the registry.
var tables = func() []table {
	var out []table
	for _, r := range operands.All() {
		out = append(out, table{kind: r.GVK.Kind, gvr: r.GVR(), namespaced: r.Namespaced,
			rejected: r.Admission.Rejected, accepted: r.Admission.Accepted})
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
	ensureNamespace(ctx, t, kube)

	suite := result.Suite{Name: "admission", Passed: true}
	var tried, rejected, useful, valid, accepted int
	for _, tb := range tables {
		var c counts
		for _, tc := range tb.rejected {
			c.tried++
			err := create(ctx, client, tb, tc)
			ok, detail := judgeRejected(tc, err)
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
			if err := create(ctx, client, tb, tc); err != nil && !apierrors.IsAlreadyExists(err) {
				suite.Fail("%s %q (valid) was rejected: %v", tb.kind, tc.Name, err)
				continue
			}
			c.accepted++
		}
		t.Logf("%s: %d invalid CRs tried, %d rejected, %d with a useful message; %d valid CRs, %d accepted", tb.kind, c.tried, c.rejected, c.useful, c.valid, c.accepted)
		suite.Add("CRs tried ("+tb.kind+")", float64(c.tried), "")
		suite.Add("rejected ("+tb.kind+")", float64(c.rejected), "")
		suite.Add("rejected with a useful message ("+tb.kind+")", float64(c.useful), "")
		tried, rejected, useful, valid, accepted = tried+c.tried, rejected+c.rejected, useful+c.useful, valid+c.valid, accepted+c.accepted
	}
	suite.Metrics = append([]result.Metric{
		{Name: "CRs tried", Value: float64(tried)},
		{Name: "rejected", Value: float64(rejected)},
		{Name: "rejected with a useful message", Value: float64(useful)},
		{Name: "valid CRs tried", Value: float64(valid)},
		{Name: "valid CRs accepted", Value: float64(accepted)},
	}, suite.Metrics...)
	if err := suite.Write(*out); err != nil {
		t.Fatal(err)
	}
	for _, f := range suite.Failures {
		t.Error(f)
	}
	t.Logf("%d invalid CRs tried, %d rejected, %d with a useful message; %d valid CRs, %d accepted", tried, rejected, useful, valid, accepted)
}

type counts struct{ tried, rejected, useful, valid, accepted int }

const notRejected = "accepted"

// judgeRejected says whether err is the rejection case c expects: a 422 Invalid or 400
// BadRequest (strict field validation) whose message holds every error c names. A case that
// names no error, or only that the CEL rules were not run, could not tell a user what to fix,
// so it never counts as useful.
func judgeRejected(c lwscases.Case, err error) (bool, string) {
	if err == nil {
		return false, notRejected
	}
	if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		return false, fmt.Sprintf("failed for another reason than validation: %v", err)
	}
	if !saysWhatToFix(c) {
		return false, "the table names no error that says what to fix"
	}
	var missing []string
	for _, want := range c.Errors {
		if !strings.Contains(err.Error(), want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("the message lacks %q; it says: %v", missing, err)
	}
	return true, ""
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
