package batchgateway

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// referenceGrant lets LLMBatchGateways of fromNamespace reference the Secret name (any, if
// empty) in namespace.
func referenceGrant(namespace, fromNamespace, name string) runtime.Object {
	to := map[string]any{"group": "", "kind": "Secret"}
	if name != "" {
		to["name"] = name
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1beta1",
		"kind":       "ReferenceGrant",
		"metadata":   map[string]any{"name": "allow", "namespace": namespace},
		"spec": map[string]any{
			"from": []any{map[string]any{"group": "batch.llm-d.ai", "kind": "LLMBatchGateway", "namespace": fromNamespace}},
			"to":   []any{to},
		},
	}}
}

func crossNamespaceCR(t *testing.T) *batchv1alpha1.LLMBatchGateway {
	cr := minimalCR(t, "gw")
	cr.Spec.SecretRef = corev1.SecretReference{Name: "creds", Namespace: "shared"}
	return cr
}

func TestCrossNamespaceSecretNeedsAReferenceGrant(t *testing.T) {
	env := newFakeEnv(t, withCRDs(optionalCRDs...), withObjects(credentials("shared", "creds", nil)))
	env.create(crossNamespaceCR(t))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	c := env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonReferenceNotPermitted)
	if !strings.Contains(c.Message, "shared/creds") {
		t.Errorf("message %q should name the Secret", c.Message)
	}
	if env.object(podConfigMaps, ns, NamesFor("gw").APIServerConfig) != nil {
		t.Error("nothing may be applied while the reference is not permitted")
	}
	if _, err := env.kube.CoreV1().Secrets(ns).Get(env.ctx, NamesFor("gw").Credentials, metav1.GetOptions{}); err == nil {
		t.Error("the Secret was copied without a ReferenceGrant")
	}
}

func TestCrossNamespaceSecretIsCopiedAndFollowed(t *testing.T) {
	env := newFakeEnv(t, withCRDs(optionalCRDs...), withObjects(credentials("shared", "creds", nil)),
		withCustomObjects(referenceGrant("shared", ns, "creds")))
	env.create(crossNamespaceCR(t))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonComponentsNotReady)
	names := NamesFor("gw")
	copied, err := env.kube.CoreV1().Secrets(ns).Get(env.ctx, names.Credentials, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the copy: %v", err)
	}
	if copied.Annotations[copiedFromAnnotation] != "shared/creds" || string(copied.Data[keyRedisURL]) != "redis://r" || !engine.IsManaged(copied.Labels) {
		t.Errorf("copy = %+v", copied)
	}
	if ref := metav1.GetControllerOf(copied); ref == nil || ref.Name != "gw" {
		t.Errorf("the copy must be owned by the CR (garbage collected with it): %v", copied.OwnerReferences)
	}
	before := env.deployment(ns, names.Processor).Spec.Template.Annotations

	// Rotating the source updates the copy and rolls the pods.
	source, _ := env.kube.CoreV1().Secrets("shared").Get(env.ctx, "creds", metav1.GetOptions{})
	source.Data[keyRedisURL] = []byte("redis://rotated")
	if _, err := env.kube.CoreV1().Secrets("shared").Update(env.ctx, source, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the rotated source in its watch", func() bool {
		s, err := env.op.secrets().Get(credentialsSource(env.get(ns, "gw")))
		return err == nil && string(s.(*corev1.Secret).Data[keyRedisURL]) == "redis://rotated"
	})
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	copied, _ = env.kube.CoreV1().Secrets(ns).Get(env.ctx, names.Credentials, metav1.GetOptions{})
	if string(copied.Data[keyRedisURL]) != "redis://rotated" {
		t.Error("the copy did not follow its source")
	}
	key := engine.ConfigHashAnnotationPrefix + "secret-creds"
	if after := env.deployment(ns, names.Processor).Spec.Template.Annotations; after[key] == "" || after[key] == before[key] {
		t.Errorf("rotated credentials must roll the pods: %s %q -> %q", key, before[key], after[key])
	}

	// The reference cannot move to another Secret once copied.
	env.update(ns, "gw", func(cr *batchv1alpha1.LLMBatchGateway) { cr.Spec.SecretRef.Name = "other" })
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionFalse, batchv1alpha1.ReasonSecretRefImmutable)

	// Back to a Secret in the CR's own namespace: the copy is no longer mounted and goes.
	if _, err := env.kube.CoreV1().Secrets(ns).Create(env.ctx, credentials(ns, "local", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.update(ns, "gw", func(cr *batchv1alpha1.LLMBatchGateway) { cr.Spec.SecretRef = corev1.SecretReference{Name: "local"} })
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.kube.CoreV1().Secrets(ns).Get(env.ctx, names.Credentials, metav1.GetOptions{}); err == nil {
		t.Error("the copy outlived its cross-namespace reference")
	}
	if got := env.op.secrets().Len(); got != 1 {
		t.Errorf("%d Secrets watched, want only the new reference", got)
	}
}

func TestMissingSecretAndKeysAreReportedWithoutValues(t *testing.T) {
	env := newFakeEnv(t)
	env.create(minimalCR(t, "gw"))
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	c := env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionFalse, engine.ReasonSecretMissing)
	if !strings.Contains(c.Message, "llm/batch-gateway-secrets") {
		t.Errorf("message %q should name the Secret", c.Message)
	}
	// Everything else is applied: the pods start once the Secret exists.
	if env.object(podConfigMaps, ns, NamesFor("gw").GCConfig) == nil {
		t.Error("a missing Secret must not stop the rest of the operand")
	}

	secret := credentials(ns, "batch-gateway-secrets", map[string]string{keyRedisURL: "redis://very-secret-value"})
	if _, err := env.kube.CoreV1().Secrets(ns).Create(env.ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.waitFor("the Secret in its watch", func() bool {
		_, err := env.op.secrets().Get(credentialsSource(env.get(ns, "gw")))
		return err == nil
	})
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatal(err)
	}
	c = env.expectCondition(ns, "gw", batchv1alpha1.ConditionReady, metav1.ConditionFalse, engine.ReasonSecretKeysMissing)
	if !strings.Contains(c.Message, keyPostgreSQLURL) || strings.Contains(c.Message, keyS3SecretAccessKey) {
		t.Errorf("message %q should name postgresql-url (the default backend) and not s3 (fs storage)", c.Message)
	}
	for _, ev := range env.recorder.Events() {
		if strings.Contains(ev.Message, "very-secret-value") {
			t.Errorf("an event carries a Secret value: %s", ev.Message)
		}
	}
	if strings.Contains(c.Message, "very-secret-value") {
		t.Error("a condition carries a Secret value")
	}
}

// On an operator's start, a CR's sync may find the watch of its credentials Secret still
// listing (another CR of the namespace started it a moment ago). The sync must not take the
// Secret for absent: that applied the Deployments without its hash, then again with it (every
// pod rolled twice on each restart or upgrade) and reported SecretMissing meanwhile. It is
// postponed instead: nothing written, no status; once the watch has listed, one create each.
func TestSyncWaitsForTheCredentialsWatchToList(t *testing.T) {
	release := make(chan struct{})
	env := newFakeEnv(t, withObjects(credentials(ns, "batch-gateway-secrets", nil)), withReferenceListsHeldUntil(release))
	env.create(minimalCR(t, "gw"))
	env.clearActions()

	err := env.op.syncKey(env.ctx, env.syncCtx, ns+"/gw")
	if !engine.IsNotSynced(err) {
		t.Errorf("sync while the Secret's watch lists = %v, want a retry for a watch not synced", err)
	}
	if w := env.writes(); len(w) > 0 {
		t.Errorf("a sync that cannot read its credentials yet wrote: %v", w)
	}

	close(release)
	env.waitFor("the credentials watch to list", func() bool {
		_, err := env.op.secrets().Get(types.NamespacedName{Namespace: ns, Name: "batch-gateway-secrets"})
		return err == nil
	})
	if err := env.sync(ns, "gw"); err != nil {
		t.Fatalf("sync once the watch has listed: %v", err)
	}
	hashKey := engine.ConfigHashAnnotationPrefix + "secret-batch-gateway-secrets"
	var deploymentWrites []string
	for _, w := range env.writes() {
		if strings.Contains(w, " deployments ") {
			deploymentWrites = append(deploymentWrites, w)
		}
	}
	if len(deploymentWrites) != 3 || !allHavePrefix(deploymentWrites, "create ") {
		t.Errorf("Deployment writes = %v, want one create of each of the 3", deploymentWrites)
	}
	d := env.deployment(ns, NamesFor("gw").APIServer)
	if d.Spec.Template.Annotations[hashKey] == "" {
		t.Errorf("pod template lacks the credentials hash %s: %v", hashKey, d.Spec.Template.Annotations)
	}
	if c := env.condition(ns, "gw", batchv1alpha1.ConditionReady); c == nil || c.Reason == engine.ReasonSecretMissing {
		t.Errorf("Ready = %+v, want a condition that does not say SecretMissing", c)
	}
}

func allHavePrefix(list []string, prefix string) bool {
	for _, s := range list {
		if !strings.HasPrefix(s, prefix) {
			return false
		}
	}
	return true
}

// TestCopiedSecretGoesWithItsGrant: once no ReferenceGrant allows the cross-namespace
// reference any more, the copy of the Secret is deleted (issue 33: it stayed, so the
// credentials outlived the consent of the Secret's namespace), and so are the credentials the
// running pods read: every Deployment of the CR is scaled to 0 (issue 33, F5), with a Warning
// event naming them and the grant to create, and Ready says so. A grant that comes back
// brings the rendered replicas back. A CR of the same namespace whose Secret is its own is
// never touched.
func TestCopiedSecretGoesWithItsGrant(t *testing.T) {
	names := NamesFor("gw")
	for _, tc := range []struct {
		name string
		cr   func(t *testing.T) *batchv1alpha1.LLMBatchGateway
		// replicas are the rendered replicas of every Deployment of the CR.
		replicas map[string]int32
	}{
		{
			name: "sync dispatch: three Deployments",
			cr: func(t *testing.T) *batchv1alpha1.LLMBatchGateway {
				cr := crossNamespaceCR(t)
				cr.Spec.APIServer.Replicas = ptr.To[int32](2)
				cr.Spec.Processor.Replicas = ptr.To[int32](3)
				return cr
			},
			replicas: map[string]int32{names.APIServer: 2, names.Processor: 3, names.GC: 1},
		},
		{
			name: "async dispatch: the async processor too",
			cr: func(t *testing.T) *batchv1alpha1.LLMBatchGateway {
				cr := goldenCR(t, "dev-async")
				cr.Name, cr.UID, cr.ResourceVersion = "gw", "", ""
				cr.Spec.SecretRef = corev1.SecretReference{Name: "creds", Namespace: "shared"}
				cr.Spec.Processor.AsyncConfig.Replicas = ptr.To[int32](2)
				return cr
			},
			replicas: map[string]int32{names.APIServer: 1, names.Processor: 1, names.GC: 1, names.AsyncProcessor: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newFakeEnv(t, withCRDs(optionalCRDs...),
				withObjects(credentials("shared", "creds", nil), credentials(ns, "batch-gateway-secrets", nil)),
				withCustomObjects(referenceGrant("shared", ns, "creds")))
			env.create(tc.cr(t))
			// A CR of the same namespace whose Secret is in its own namespace.
			local := minimalCR(t, "local")
			local.Spec.APIServer.Replicas = ptr.To[int32](2)
			env.create(local)
			for _, name := range []string{"gw", "local"} {
				if err := env.sync(ns, name); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := env.kube.CoreV1().Secrets(ns).Get(env.ctx, names.Credentials, metav1.GetOptions{}); err != nil {
				t.Fatalf("the copy under the grant: %v", err)
			}
			env.expectReplicas(tc.replicas, "under the grant")
			localNames := NamesFor("local")
			localReplicas := map[string]int32{localNames.APIServer: 2, localNames.Processor: 1, localNames.GC: 1}
			env.expectReplicas(localReplicas, "of the same-namespace CR")

			// The grant goes: the copy goes, the Deployments are scaled to 0.
			env.clearActions()
			if err := env.dynamic.Resource(ReferenceGrantGVR).Namespace("shared").Delete(env.ctx, "allow", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			env.waitFor("a sync that sees the grant gone", func() bool {
				if err := env.sync(ns, "gw"); err != nil {
					t.Fatal(err)
				}
				c := env.condition(ns, "gw", batchv1alpha1.ConditionReady)
				return c != nil && c.Reason == batchv1alpha1.ReasonReferenceNotPermitted
			})
			if _, err := env.kube.CoreV1().Secrets(ns).Get(env.ctx, names.Credentials, metav1.GetOptions{}); err == nil {
				t.Error("the copy outlived the ReferenceGrant that allowed it")
			}
			if _, err := env.kube.CoreV1().Secrets("shared").Get(env.ctx, "creds", metav1.GetOptions{}); err != nil {
				t.Errorf("the source Secret, the user's, must stay: %v", err)
			}
			atZero := map[string]int32{}
			for name := range tc.replicas {
				atZero[name] = 0
				if d := env.deployment(ns, name); len(d.Spec.Template.Spec.Containers) == 0 {
					t.Errorf("Deployment %s lost its pod template in the scale", name)
				}
			}
			env.expectReplicas(atZero, "without the grant")
			ready := env.condition(ns, "gw", batchv1alpha1.ConditionReady)
			grantToCreate := "ReferenceGrant in namespace shared"
			if !strings.Contains(ready.Message, "its Deployments are scaled to 0 replicas until a ReferenceGrant allows the reference again") ||
				!strings.Contains(ready.Message, grantToCreate) {
				t.Errorf("Ready message %q should say the Deployments are at 0 and name the grant to create", ready.Message)
			}
			if c := env.condition(ns, "gw", batchv1alpha1.ConditionAPIServerAvailable); c == nil ||
				!strings.Contains(c.Message, "is scaled to 0 until a ReferenceGrant allows spec.secretRef") {
				t.Errorf("APIServerAvailable = %+v, want it to say why the Deployment is at 0 (not the spec's replicas)", c)
			}
			scaledEvents := env.eventsOf(reasonDeploymentsScaledToZero)
			if len(scaledEvents) != 1 || scaledEvents[0].Type != corev1.EventTypeWarning {
				t.Fatalf("%s events = %v, want one Warning", reasonDeploymentsScaledToZero, scaledEvents)
			}
			for name := range tc.replicas {
				if !strings.Contains(scaledEvents[0].Message, ns+"/"+name) {
					t.Errorf("the event does not name Deployment %s: %s", name, scaledEvents[0].Message)
				}
			}
			if !strings.Contains(scaledEvents[0].Message, grantToCreate) {
				t.Errorf("the event does not name the grant to create: %s", scaledEvents[0].Message)
			}
			for _, ev := range env.recorder.Events() {
				for _, value := range []string{"redis://r", "postgresql://p"} {
					if strings.Contains(ev.Message, value) {
						t.Errorf("an event carries a Secret value: %s", ev.Message)
					}
				}
			}

			// Another sync without the grant: the Deployments are at 0 already, nothing is
			// written and no second event recorded.
			env.clearActions()
			if err := env.sync(ns, "gw"); err != nil {
				t.Fatal(err)
			}
			if w := env.writesOf(" deployments "); len(w) > 0 {
				t.Errorf("a sync that found the Deployments at 0 wrote them: %v", w)
			}
			if n := len(env.eventsOf(reasonDeploymentsScaledToZero)); n != 1 {
				t.Errorf("%d %s events after a quiet sync, want still 1", n, reasonDeploymentsScaledToZero)
			}

			// The same-namespace CR is not touched.
			if err := env.sync(ns, "local"); err != nil {
				t.Fatal(err)
			}
			env.expectReplicas(localReplicas, "of the same-namespace CR after the grant went")
			if c := env.condition(ns, "local", batchv1alpha1.ConditionReady); c == nil || c.Reason == batchv1alpha1.ReasonReferenceNotPermitted {
				t.Errorf("Ready of the same-namespace CR = %+v", c)
			}

			// The grant comes back: the copy and the rendered replicas come back.
			if _, err := env.dynamic.Resource(ReferenceGrantGVR).Namespace("shared").Create(env.ctx, referenceGrant("shared", ns, "creds").(*unstructured.Unstructured), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			env.waitFor("a sync that sees the grant back", func() bool {
				if err := env.sync(ns, "gw"); err != nil {
					t.Fatal(err)
				}
				c := env.condition(ns, "gw", batchv1alpha1.ConditionReady)
				return c != nil && c.Reason != batchv1alpha1.ReasonReferenceNotPermitted
			})
			if _, err := env.kube.CoreV1().Secrets(ns).Get(env.ctx, names.Credentials, metav1.GetOptions{}); err != nil {
				t.Errorf("the copy under the restored grant: %v", err)
			}
			env.expectReplicas(tc.replicas, "under the restored grant")
		})
	}
}

// expectReplicas checks the spec.replicas of Deployments of the namespace ns.
func (e *fakeEnv) expectReplicas(want map[string]int32, when string) {
	e.t.Helper()
	for name, replicas := range want {
		if got := ptr.Deref(e.deployment(ns, name).Spec.Replicas, -1); got != replicas {
			e.t.Errorf("Deployment %s %s: replicas %d, want %d", name, when, got, replicas)
		}
	}
}

// eventsOf lists the events of one reason recorded so far.
func (e *fakeEnv) eventsOf(reason string) []*corev1.Event {
	var out []*corev1.Event
	for _, ev := range e.recorder.Events() {
		if ev.Reason == reason {
			out = append(out, ev)
		}
	}
	return out
}

// writesOf lists the writes since the last clear whose description contains part.
func (e *fakeEnv) writesOf(part string) []string {
	var out []string
	for _, w := range e.writes() {
		if strings.Contains(w, part) {
			out = append(out, w)
		}
	}
	return out
}

// Issue 34: a Deployment is never applied without the hash of a Secret its pods mount. A Secret
// created after the CR (kubectl apply of a folder, cert-manager issuing the apiserver's TLS
// Secret), or just before it while the watch has not delivered it, left the Deployments created
// without its hash and updated with it a moment later: a second ReplicaSet for every new
// Deployment, and DeploymentUpdateFailed conflicts when the update raced the controller
// manager's status writes. The Deployments that mount it now wait for it: one create each, no
// update, every hash there.
func TestDeploymentsWaitForTheSecretsTheyMount(t *testing.T) {
	names := NamesFor("gw")
	credentialsHash := engine.ConfigHashAnnotationPrefix + "secret-batch-gateway-secrets"
	tlsHash := engine.ConfigHashAnnotationPrefix + "secret-gw-tls"
	tlsSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gw-tls", Namespace: ns}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte("cert"), corev1.TLSPrivateKeyKey: []byte("key")}}
	for _, c := range []struct {
		name string
		// before exist when the CR is created; late is created after its first sync.
		before []runtime.Object
		late   *corev1.Secret
		tls    bool
		// held are the Deployments the first sync holds back; every Deployment's hashes.
		held   []string
		hashes map[string][]string
	}{
		{
			name: "the credentials Secret created after the CR",
			late: credentials(ns, "batch-gateway-secrets", nil),
			held: []string{names.APIServer, names.Processor, names.GC},
			hashes: map[string][]string{names.APIServer: {credentialsHash}, names.Processor: {credentialsHash},
				names.GC: {credentialsHash}},
		},
		{
			name:   "the apiserver's TLS Secret created after the CR",
			before: []runtime.Object{credentials(ns, "batch-gateway-secrets", nil)},
			late:   tlsSecret,
			tls:    true,
			held:   []string{names.APIServer},
			hashes: map[string][]string{names.APIServer: {credentialsHash, tlsHash}, names.Processor: {credentialsHash},
				names.GC: {credentialsHash}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newFakeEnv(t, withObjects(c.before...))
			cr := minimalCR(t, "gw")
			if c.tls {
				cr.Spec.TLS = &batchv1alpha1.TLSSpec{Enabled: true, SecretName: c.late.Name}
			}
			env.create(cr)
			if err := env.sync(ns, "gw"); err != nil {
				t.Fatal(err)
			}
			for _, name := range c.held {
				if _, err := env.kube.AppsV1().Deployments(ns).Get(env.ctx, name, metav1.GetOptions{}); err == nil {
					t.Errorf("Deployment %s was applied while a Secret it mounts did not exist", name)
				}
			}
			p := env.condition(ns, "gw", engine.ConditionProgressing)
			if p == nil || p.Reason != engine.ReasonWaitingForMountedSecrets || !strings.Contains(p.Message, ns+"/"+c.late.Name) {
				t.Errorf("Progressing = %+v, want %s naming %s/%s", p, engine.ReasonWaitingForMountedSecrets, ns, c.late.Name)
			}

			if _, err := env.kube.CoreV1().Secrets(ns).Create(env.ctx, c.late, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			env.waitFor("the Secret in its watch", func() bool {
				_, err := env.op.secrets().Get(types.NamespacedName{Namespace: ns, Name: c.late.Name})
				return err == nil
			})
			if err := env.sync(ns, "gw"); err != nil {
				t.Fatal(err)
			}
			// Once more, as the Deployments' events would: nothing left to write.
			if err := env.sync(ns, "gw"); err != nil {
				t.Fatal(err)
			}
			var deploymentWrites []string
			for _, w := range env.writes() {
				if strings.Contains(w, " deployments ") {
					deploymentWrites = append(deploymentWrites, w)
				}
			}
			if len(deploymentWrites) != len(c.hashes) || !allHavePrefix(deploymentWrites, "create ") {
				t.Errorf("Deployment writes = %v, want one create of each of the %d", deploymentWrites, len(c.hashes))
			}
			for name, keys := range c.hashes {
				d := env.deployment(ns, name)
				for _, key := range keys {
					if d.Spec.Template.Annotations[key] == "" {
						t.Errorf("Deployment %s lacks the hash %s: %v", name, key, d.Spec.Template.Annotations)
					}
				}
			}
		})
	}
}
