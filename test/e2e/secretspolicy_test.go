package e2e

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// secretsPolicy is the ValidatingAdmissionPolicy of deploy/15_secrets-policy.yaml; its name
// is in every refusal's message, which tells the policy's refusal from RBAC's.
const secretsPolicy = "llm-infra-operator-secrets"

// The policy bounds what the operator's ServiceAccount may do to Secrets, which RBAC grants in
// every namespace. The requests are the ServiceAccount's own (impersonated: the API server
// authorizes and admits them as the operator's), against the RBAC and the policy deploy/
// installed. The operator's own Secret writes across the suite (B6's copy of a credentials
// Secret, the GPU specs' connection Secrets and key copies, the LWS operand's certificates in
// L11 and L14) are the other half: none of them may be refused.
var _ = Describe("Secrets policy", func() {
	It("S1. refuses the operator's ServiceAccount every Secret write but to its own labelled Secrets, and any service-account-token Secret", func(ctx SpecContext) {
		asOperator := operatorClient()
		namespace := secretsPolicyNamespace(ctx)
		secrets := asOperator.CoreV1().Secrets(namespace)
		labelled := map[string]string{managedByLabel: managedByValue}
		secret := func(name string, labels map[string]string, secretType corev1.SecretType) *corev1.Secret {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
				Type: secretType, Data: map[string][]byte{"key": []byte("value")}}
		}
		expectRefused := func(err error, what, says string) {
			GinkgoHelper()
			Expect(err).To(HaveOccurred(), "%s must be refused", what)
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%s: want Forbidden, got %v", what, err)
			Expect(err.Error()).To(And(ContainSubstring(secretsPolicy), ContainSubstring(says)), "%s: the refusal names the policy and why", what)
		}

		// The policy takes effect once the API server's informer has it: it was applied before
		// the operator started, so this normally holds at once. A dry run is admitted like a
		// write and stores nothing.
		By("waiting until the policy refuses a dry-run create of an unlabelled Secret")
		Eventually(ctx, func(g Gomega) {
			_, err := secrets.Create(ctx, secret("probe", nil, corev1.SecretTypeOpaque), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "dry-run create of an unlabelled Secret: %v", err)
		}).WithTimeout(30 * time.Second).WithPolling(poll).Should(Succeed())

		By("refused: creating a Secret without the managed-by label")
		_, err := secrets.Create(ctx, secret("unlabelled", nil, corev1.SecretTypeOpaque), metav1.CreateOptions{})
		expectRefused(err, "create of an unlabelled Secret", "without the label")

		By("refused: creating a labelled service-account-token Secret in kube-system (dry run: were it admitted, it would mint a token)")
		token := secret("llm-infra-operator-e2e-token", labelled, corev1.SecretTypeServiceAccountToken)
		token.Namespace = "kube-system"
		token.Annotations = map[string]string{corev1.ServiceAccountNameKey: "default"}
		token.Data = nil
		_, err = asOperator.CoreV1().Secrets("kube-system").Create(ctx, token, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		expectRefused(err, "create of a service-account-token Secret in kube-system", "kubernetes.io/service-account-token")

		By("refused: updating, even to label it, and deleting a Secret someone else made")
		users, err := fw.kube.CoreV1().Secrets(namespace).Create(ctx, secret("users", nil, corev1.SecretTypeOpaque), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred(), "the administrator, to whom the policy does not apply, creates an unlabelled Secret")
		adopted := users.DeepCopy()
		adopted.Labels = labelled
		adopted.Data = map[string][]byte{"key": []byte("overwritten")}
		_, err = secrets.Update(ctx, adopted, metav1.UpdateOptions{})
		expectRefused(err, "update of a Secret the operator did not label", "does not carry the label")
		err = secrets.Delete(ctx, users.Name, metav1.DeleteOptions{})
		expectRefused(err, "delete of a Secret the operator did not label", "does not carry the label")
		kept, err := fw.kube.CoreV1().Secrets(namespace).Get(ctx, users.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(kept.Data).To(Equal(users.Data), "the user's Secret is as the user wrote it")

		By("allowed: creating, updating and deleting a labelled Opaque Secret")
		created, err := secrets.Create(ctx, secret("operators", labelled, corev1.SecretTypeOpaque), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred(), "create of a labelled Opaque Secret")
		created.Data = map[string][]byte{"key": []byte("updated")}
		_, err = secrets.Update(ctx, created, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred(), "update of the operator's labelled Secret")
		Expect(secrets.Delete(ctx, created.Name, metav1.DeleteOptions{})).To(Succeed(), "delete of the operator's labelled Secret")
	}, NodeTimeout(2*time.Minute))
})

// operatorClient is a client that acts as the operator's ServiceAccount (named as its
// Deployment, deploy/02_serviceaccount.yaml): the administrator's credentials, impersonating it with the groups the API server gives every ServiceAccount.
func operatorClient() kubernetes.Interface {
	config := rest.CopyConfig(fw.config)
	config.Impersonate = rest.ImpersonationConfig{
		UserName: fmt.Sprintf("system:serviceaccount:%s:%s", fw.namespace, operatorName),
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + fw.namespace, "system:authenticated"},
	}
	return kubernetes.NewForConfigOrDie(config)
}

// secretsPolicyNamespace is a namespace of the spec's own, deleted after it.
func secretsPolicyNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := fw.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-secrets-policy-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		err := fw.kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		if !apierrors.IsNotFound(err) {
			Expect(err).NotTo(HaveOccurred())
		}
	})
	return ns.Name
}
