package manifests

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// deploy/15_secrets-policy.yaml: the ValidatingAdmissionPolicy on the operator's Secret writes
// and its binding. Its expressions are evaluated here with the API server's own CEL admission
// code (k8s.io/apiserver at the vendored version: what the validating admission policy plugin
// compiles and runs), on the oldest Kubernetes the bundle claims and the newest; test/e2e's S1
// sends the same kinds of request to a real API server as the operator's ServiceAccount.
const (
	secretsPolicyFile = "deploy/15_secrets-policy.yaml"
	secretsPolicyName = "llm-infra-operator-secrets"
)

func secretsPolicy(t *testing.T) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	docs := documents(t, secretsPolicyFile, readFile(t, secretsPolicyFile))
	if len(docs) != 2 {
		t.Fatalf("%s: want the policy and its binding, got %d objects", secretsPolicyFile, len(docs))
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	decodeStrict(t, secretsPolicyFile, docs[0].raw, policy)
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
	decodeStrict(t, secretsPolicyFile, docs[1].raw, binding)
	return policy, binding
}

// TestSecretsPolicyShape: the policy refuses (Fail on an error, Deny), on every Secret write of
// the operator's ServiceAccount in every namespace, and says in each message that it refused.
func TestSecretsPolicyShape(t *testing.T) {
	policy, binding := secretsPolicy(t)
	if fp := policy.Spec.FailurePolicy; fp == nil || *fp != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy %v, want Fail: an expression that errs must refuse, not admit", fp)
	}
	if policy.Spec.ParamKind != nil {
		t.Errorf("paramKind %v: the policy has no parameters (a binding could not weaken it through one)", policy.Spec.ParamKind)
	}
	mc := policy.Spec.MatchConstraints
	if mc == nil || len(mc.ResourceRules) != 1 || mc.NamespaceSelector != nil || mc.ObjectSelector != nil {
		t.Fatalf("matchConstraints %+v: want one rule on Secrets in every namespace", mc)
	}
	rule := mc.ResourceRules[0].RuleWithOperations
	wantOps := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete}
	if !slices.Equal(rule.APIGroups, []string{""}) || !slices.Equal(rule.APIVersions, []string{"v1"}) ||
		!slices.Equal(rule.Resources, []string{"secrets"}) || !slices.Equal(rule.Operations, wantOps) {
		t.Errorf("rule %+v: want core v1 secrets, %v", rule, wantOps)
	}
	for i, v := range policy.Spec.Validations {
		if v.Reason == nil || *v.Reason != metav1.StatusReasonForbidden {
			t.Errorf("validation %d: reason %v, want Forbidden", i, v.Reason)
		}
		for _, text := range []string{v.Message, v.MessageExpression} {
			if !strings.Contains(text, "ValidatingAdmissionPolicy "+secretsPolicyName) {
				t.Errorf("validation %d: %q does not name the policy", i, text)
			}
		}
	}
	if binding.Name != secretsPolicyName || binding.Spec.PolicyName != policy.Name || policy.Name != secretsPolicyName {
		t.Errorf("binding %s of policy %s, want both %s", binding.Name, binding.Spec.PolicyName, secretsPolicyName)
	}
	if !slices.Equal(binding.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) {
		t.Errorf("validationActions %v, want [Deny]", binding.Spec.ValidationActions)
	}
	if binding.Spec.MatchResources != nil || binding.Spec.ParamRef != nil {
		t.Errorf("binding matchResources %+v paramRef %+v: want none (every namespace, no parameters)", binding.Spec.MatchResources, binding.Spec.ParamRef)
	}
	// The label the policy requires is the one the operator sets (engine.Stamp), as written in
	// its expressions.
	for _, v := range policy.Spec.Variables {
		if strings.HasPrefix(v.Name, "labelled") || strings.HasPrefix(v.Name, "oldLabelled") {
			for _, want := range []string{"'" + engine.ManagedByLabel + "'", "'" + engine.ManagedByValue + "'"} {
				if !strings.Contains(v.Expression, want) {
					t.Errorf("variable %s does not name %s: %s", v.Name, want, v.Expression)
				}
			}
		}
	}
}

// TestSecretsPolicyMatchesTheOperatorInAnyNamespace: the match condition's pattern (RE2, as
// CEL's matches) is the operator's ServiceAccount in any one namespace, and nothing else.
func TestSecretsPolicyMatchesTheOperatorInAnyNamespace(t *testing.T) {
	policy, _ := secretsPolicy(t)
	if len(policy.Spec.MatchConditions) != 1 {
		t.Fatalf("matchConditions %+v: want one", policy.Spec.MatchConditions)
	}
	m := regexp.MustCompile(`request\.userInfo\.username\.matches\('([^']+)'\)`).FindStringSubmatch(policy.Spec.MatchConditions[0].Expression)
	if m == nil {
		t.Fatalf("match condition %q is not request.userInfo.username.matches('...')", policy.Spec.MatchConditions[0].Expression)
	}
	pattern := regexp.MustCompile(m[1])
	for _, tc := range []struct {
		username string
		want     bool
	}{
		{"system:serviceaccount:" + namespace + ":" + serviceAccount, true},
		{"system:serviceaccount:operators:" + serviceAccount, true},
		{"system:serviceaccount:" + namespace + ":lws-controller-manager", false},
		{"system:serviceaccount:" + namespace + ":" + serviceAccount + "-other", false},
		{"system:serviceaccount:" + namespace + ":x:" + serviceAccount, false},
		{"system:serviceaccount::" + serviceAccount, false},
		{serviceAccount, false},
		{"kube:admin", false},
	} {
		if got := pattern.MatchString(tc.username); got != tc.want {
			t.Errorf("%s matches %v, want %v", tc.username, got, tc.want)
		}
	}
}

// secretsPolicyCase is one request the policy judges.
type secretsPolicyCase struct {
	name      string
	op        admission.Operation
	username  string
	namespace string
	object    *corev1.Secret
	old       *corev1.Secret
	// refused is a substring of the message of the refusal; "" admits.
	refused string
}

// TestSecretsPolicyVerdicts evaluates the policy on each request, as compiled for each
// Kubernetes release from the oldest the bundle claims (1.30, where the policy API is GA) to the
// vendored one. New expressions are checked against the release's CEL libraries, so a function
// 1.30 lacks fails to compile and refuses every case.
func TestSecretsPolicyVerdicts(t *testing.T) {
	policy, _ := secretsPolicy(t)
	operator := "system:serviceaccount:" + namespace + ":" + serviceAccount
	labels := map[string]string{engine.ManagedByLabel: engine.ManagedByValue}
	secret := func(ns string, labels map[string]string, secretType corev1.SecretType) *corev1.Secret {
		return &corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: ns, Labels: labels}, Type: secretType}
	}
	opaque, users := secret("user-ns", labels, corev1.SecretTypeOpaque), secret("user-ns", nil, corev1.SecretTypeOpaque)
	otherLabel := secret("user-ns", map[string]string{engine.ManagedByLabel: "someone-else"}, corev1.SecretTypeOpaque)
	token := secret("kube-system", labels, corev1.SecretTypeServiceAccountToken)
	tls := secret(namespace, labels, corev1.SecretTypeTLS)
	// An earlier release's CA Secret in the operator's namespace: no label.
	earlierCA := secret(namespace, nil, corev1.SecretTypeTLS)
	ownToken := secret(namespace, nil, corev1.SecretTypeServiceAccountToken)
	ownTokenLabelled := secret(namespace, labels, corev1.SecretTypeServiceAccountToken)
	cases := []secretsPolicyCase{
		{name: "create a labelled Opaque Secret", op: admission.Create, object: opaque},
		{name: "create a labelled TLS Secret (the LWS operand's certificates)", op: admission.Create, object: tls},
		{name: "update a labelled Secret", op: admission.Update, object: opaque, old: opaque},
		{name: "delete a labelled Secret", op: admission.Delete, old: opaque},
		{name: "create an unlabelled Secret", op: admission.Create, object: users, refused: "without the label"},
		{name: "create a Secret labelled managed by someone else", op: admission.Create, object: otherLabel, refused: "without the label"},
		{name: "create a labelled service-account-token Secret in kube-system", op: admission.Create, object: token, refused: "kubernetes.io/service-account-token"},
		{name: "update someone else's Secret, labelling it", op: admission.Update, object: opaque, old: users, refused: "does not carry the label"},
		{name: "update a labelled Secret, taking the label off", op: admission.Update, object: users, old: opaque, refused: "without the label"},
		{name: "update a service-account-token Secret", op: admission.Update, object: token, old: token, refused: "kubernetes.io/service-account-token"},
		{name: "delete someone else's Secret", op: admission.Delete, old: users, refused: "does not carry the label"},
		{name: "update an earlier release's CA Secret in the operator's namespace, labelling it", op: admission.Update, object: tls, old: earlierCA},
		{name: "update an earlier release's CA Secret in the operator's namespace without labelling it", op: admission.Update, object: earlierCA, old: earlierCA, refused: "without the label"},
		{name: "delete an unlabelled Secret in the operator's namespace", op: admission.Delete, old: earlierCA, refused: "does not carry the label"},
		{name: "label an unlabelled service-account-token Secret in the operator's namespace", op: admission.Update, object: ownTokenLabelled, old: ownToken, refused: "kubernetes.io/service-account-token"},
		{name: "a ServiceAccount of the operator's name in another namespace labels an unlabelled Secret of the operator's namespace", op: admission.Update, username: "system:serviceaccount:user-ns:" + serviceAccount, object: tls, old: earlierCA, refused: "does not carry the label"},
		{name: "delete a labelled service-account-token Secret", op: admission.Delete, old: token, refused: "kubernetes.io/service-account-token"},
		{name: "another subject creates an unlabelled Secret", op: admission.Create, username: "kube:admin", object: users},
		{name: "another ServiceAccount of the operator's namespace creates a service-account-token Secret", op: admission.Create, username: "system:serviceaccount:" + namespace + ":lws-controller-manager", object: token},
	}
	for _, release := range []*version.Version{version.MajorMinor(1, 30), environment.DefaultCompatibilityVersion()} {
		validator := compileSecretsPolicy(policy, release)
		for _, tc := range cases {
			t.Run(release.String()+"/"+tc.name, func(t *testing.T) {
				if tc.username == "" {
					tc.username = operator
				}
				refusals := judge(t, validator, tc)
				switch {
				case tc.refused == "" && len(refusals) > 0:
					t.Errorf("refused: %v", refusals)
				case tc.refused != "" && len(refusals) == 0:
					t.Errorf("admitted, want refused with %q", tc.refused)
				case tc.refused != "" && !strings.Contains(strings.Join(refusals, "\n"), tc.refused):
					t.Errorf("refused with %v, want a message with %q", refusals, tc.refused)
				}
				// The messageExpressions name the Secret; the static messages, their fallback,
				// cannot.
				for _, r := range refusals {
					if ref := cmp.Or(tc.old, tc.object); !strings.Contains(r, " the Secret "+ref.Namespace+"/"+ref.Name) {
						t.Errorf("refusal %q does not name the Secret %s/%s", r, ref.Namespace, ref.Name)
					}
				}
			})
		}
	}
}

// compileSecretsPolicy compiles the policy as the validating admission policy plugin does
// (k8s.io/apiserver/pkg/admission/plugin/policy/validating, compilePolicy, which is not
// exported), with the CEL environment of a release, its new expressions checked against it.
func compileSecretsPolicy(policy *admissionregistrationv1.ValidatingAdmissionPolicy, release *version.Version) validating.Validator {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(release))
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, policy.Spec.FailurePolicy, err)
	}
	vars := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	mode := environment.NewExpressions
	var variables []plugincel.NamedExpressionAccessor
	for _, v := range policy.Spec.Variables {
		variables = append(variables, &validating.Variable{Name: v.Name, Expression: v.Expression})
	}
	compiler.CompileAndStoreVariables(variables, vars, mode)
	var conditions []plugincel.ExpressionAccessor
	for i := range policy.Spec.MatchConditions {
		conditions = append(conditions, (*matchconditions.MatchCondition)(&policy.Spec.MatchConditions[i]))
	}
	matcher := matchconditions.NewMatcher(compiler.CompileCondition(conditions, vars, mode), policy.Spec.FailurePolicy, "policy", "validate", policy.Name)
	var validations, messages []plugincel.ExpressionAccessor
	for _, v := range policy.Spec.Validations {
		validations = append(validations, &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason})
		messages = append(messages, &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression})
	}
	return validating.NewValidator(
		compiler.CompileCondition(validations, vars, mode),
		matcher,
		compiler.CompileCondition(nil, vars, mode),
		compiler.CompileCondition(messages, plugincel.OptionalVariableDeclarations{}, mode),
		policy.Spec.FailurePolicy, nil)
}

// judge runs one request through the validator and returns the messages of its refusals. An
// expression that errs is a failure of the test, not a refusal.
func judge(t *testing.T, v validating.Validator, tc secretsPolicyCase) []string {
	t.Helper()
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	var obj, old runtime.Object
	ref := tc.object
	if tc.object != nil {
		obj = tc.object
	}
	if tc.old != nil {
		old = tc.old
		ref = tc.old
	}
	attrs := admission.NewAttributesRecord(obj, old, gvk, ref.Namespace, ref.Name, gvr, "", tc.op, nil, false,
		&user.DefaultInfo{Name: tc.username})
	versioned := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk, VersionedObject: obj, VersionedOldObject: old}
	result := v.Validate(context.Background(), gvr, versioned, nil, nil, celconfig.RuntimeCELCostBudget, nil)
	var refusals []string
	for _, d := range result.Decisions {
		switch {
		case d.Evaluation == validating.EvalError:
			t.Errorf("an expression failed: %s", d.Message)
		case d.Action == validating.ActionDeny:
			refusals = append(refusals, d.Message)
		}
	}
	return refusals
}
