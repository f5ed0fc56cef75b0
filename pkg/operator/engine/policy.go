package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Some CR fields make the operator create objects that reach beyond the CR's namespace with the
// operator's rights, not the user's: a Gateway API Gateway of any GatewayClass (a load balancer,
// an address, a listener on shared infrastructure) and a cert-manager certificate from any
// ClusterIssuer (a certificate for any DNS name that issuer signs). A namespace user who may not
// create those objects could have the operator create them. The administrator limits the names
// CRs may use with allowlists in the operator's environment; unset, every name is allowed, as
// upstream (a drop-in CR keeps working). A namespaced Issuer is the namespace's own and is never
// limited.

// The operator's environment variables of its allowlists: names separated by commas.
const (
	AllowedGatewayClassesEnv = "ALLOWED_GATEWAY_CLASSES"
	AllowedClusterIssuersEnv = "ALLOWED_CLUSTER_ISSUERS"
)

// Allowlist is the names of cluster-scoped objects of one kind that CRs may name.
type Allowlist struct {
	// Env is the environment variable that sets it, for messages.
	Env string
	// restricted is false while Env is unset: every name is allowed.
	restricted bool
	names      []string
}

// AllowlistFromEnv reads an allowlist from env: unset, every name; set, the comma-separated
// names in it (white space around each ignored), so set and empty allows none.
func AllowlistFromEnv(env string, lookup func(string) (string, bool)) Allowlist {
	value, set := lookup(env)
	list := Allowlist{Env: env, restricted: set}
	for _, name := range strings.Split(value, ",") {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(list.names, name) {
			list.names = append(list.names, name)
		}
	}
	return list
}

// Allows says whether CRs may name name.
func (l Allowlist) Allows(name string) bool {
	return !l.restricted || slices.Contains(l.names, name)
}

// String is the list for logs and messages.
func (l Allowlist) String() string {
	switch {
	case !l.restricted:
		return "any (" + l.Env + " unset)"
	case len(l.names) == 0:
		return "none (" + l.Env + " empty)"
	}
	return "[" + strings.Join(l.names, " ") + "]"
}

// Policy is what the administrator allows CRs to name, from the operator's environment. The
// zero Policy allows everything (a render without a cluster).
type Policy struct {
	GatewayClasses Allowlist
	ClusterIssuers Allowlist
}

// PolicyFromEnv reads the allowlists of the operator's environment.
func PolicyFromEnv(lookup func(string) (string, bool)) Policy {
	return Policy{
		GatewayClasses: AllowlistFromEnv(AllowedGatewayClassesEnv, lookup),
		ClusterIssuers: AllowlistFromEnv(AllowedClusterIssuersEnv, lookup),
	}
}

// NotAllowed is a name a CR uses that an allowlist refuses: where, and what the operator does
// not create for it.
type NotAllowed struct {
	// Field is the CR's field that names it.
	Field string
	// Kind is the kind of the named object (GatewayClass, ClusterIssuer); Name its name.
	Kind, Name string
	// List is the allowlist that refuses it.
	List Allowlist
	// Skipped says what is not created ("the Gateway API Gateway llm/gw is not created").
	Skipped string
}

// Reason is the condition reason of a refused name of the kind: <Kind>NotAllowed.
func (n NotAllowed) Reason() string { return n.Kind + "NotAllowed" }

// Message says what is refused, what is not created, and where the administrator sets the list.
func (n NotAllowed) Message() string {
	return fmt.Sprintf("%s names the %s %q, which the operator's administrator does not allow (allowed: %s; set by %s in the operator's environment: the Deployment, or the Subscription's spec.config.env under OLM): %s; name an allowed %s, or ask the administrator to add it",
		n.Field, n.Kind, n.Name, n.List, n.List.Env, n.Skipped, n.Kind)
}

// NotAllowedProblem reports refused names: Degraded with the first one's reason and every
// message, not blocking (the rest of the CR is applied), and so a Warning event. Nil when none
// is refused.
func NotAllowedProblem(refused []NotAllowed) *StepError {
	if len(refused) == 0 {
		return nil
	}
	messages := make([]string, len(refused))
	for i, n := range refused {
		messages[i] = n.Message()
	}
	return Problem(refused[0].Reason(), "%s", strings.Join(messages, "; "))
}

// cert-manager's annotations on an Ingress or a Gateway API Gateway (its ingress-shim and
// gateway-shim): the issuer of the certificate it then creates for the object's hosts.
const (
	CertManagerClusterIssuerAnnotation = "cert-manager.io/cluster-issuer"
	CertManagerIssuerAnnotation        = "cert-manager.io/issuer"
	CertManagerIssuerKindAnnotation    = "cert-manager.io/issuer-kind"
	CertManagerIssuerGroupAnnotation   = "cert-manager.io/issuer-group"
)

// AnnotatedClusterIssuers are the ClusterIssuers cert-manager's annotations name, each with the
// annotation that names it: cert-manager.io/cluster-issuer, and cert-manager.io/issuer with
// issuer-kind ClusterIssuer of cert-manager's own group (an external issuer's kinds are that
// issuer's business).
func AnnotatedClusterIssuers(annotations map[string]string) map[string]string {
	out := map[string]string{}
	if name := annotations[CertManagerClusterIssuerAnnotation]; name != "" {
		out[CertManagerClusterIssuerAnnotation] = name
	}
	group := annotations[CertManagerIssuerGroupAnnotation]
	if name := annotations[CertManagerIssuerAnnotation]; name != "" && annotations[CertManagerIssuerKindAnnotation] == "ClusterIssuer" && (group == "" || group == "cert-manager.io") {
		out[CertManagerIssuerAnnotation] = name
	}
	return out
}
