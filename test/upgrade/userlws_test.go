package upgrade

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// A user's LeaderWorkerSet across the upgrade (the previous release runs LWS v0.8.0, this one
// v0.10.0, whose CRD replaces the old one): the LeaderWorkerSet, its leader StatefulSet and the
// StatefulSet's pods must be the same objects afterwards. The local cluster runs no LWS
// controller (kwok's pods are not processes), so the suite makes the StatefulSet as the
// controller would (owned by the LeaderWorkerSet, with its name label); kube-controller-manager
// makes the pods. The controller's webhooks (failure policy Fail) are answered by a stand-in on
// the webhook Service's address with the certificate cert-manager issued for it.
const (
	userLWSName      = "user-lws"
	lwsNameLabel     = "leaderworkerset.sigs.k8s.io/name"
	webhookSecret    = "webhook-server-cert"
	userLWSReadyWait = 3 * time.Minute
)

// userLWS is what the suite made, by UID.
type userLWS struct {
	namespace   string
	lws, leader types.UID
	pods        map[string]types.UID
	standIn     *http.Server
}

// makeUserLWS starts the webhook stand-in and makes the LeaderWorkerSet, its leader StatefulSet
// and (through kube-controller-manager) its pods, and waits until the pods are ready.
func (e *env) makeUserLWS(ctx context.Context, t *testing.T, namespace string) *userLWS {
	t.Helper()
	u := &userLWS{namespace: namespace}
	var err error
	if u.standIn, err = e.startWebhookStandIn(ctx); err != nil {
		t.Fatalf("the LWS webhooks' stand-in: %v", err)
	}
	lws := live.PauseLeaderWorkerSet(namespace, userLWSName, 2)
	// The API server's webhook client may need a moment for the stand-in's first connection.
	var created *unstructured.Unstructured
	err = wait.PollUntilContextTimeout(ctx, poll, time.Minute, true, func(ctx context.Context) (bool, error) {
		created, err = e.dyn.Resource(live.LeaderWorkerSets).Namespace(namespace).Create(ctx, lws, metav1.CreateOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("create LeaderWorkerSet %s/%s through the webhooks: %v", namespace, userLWSName, err)
	}
	u.lws = created.GetUID()
	labels := map[string]string{lwsNameLabel: userLWSName, "leaderworkerset.sigs.k8s.io/worker-index": "0"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: userLWSName, Namespace: namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "leaderworkerset.x-k8s.io/v1", Kind: "LeaderWorkerSet", Name: userLWSName, UID: u.lws, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "leader", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
	createdSTS, err := e.kube.AppsV1().StatefulSets(namespace).Create(ctx, sts, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create the leader StatefulSet: %v", err)
	}
	u.leader = createdSTS.UID
	err = wait.PollUntilContextTimeout(ctx, poll, userLWSReadyWait, true, func(ctx context.Context) (bool, error) {
		pods, err := e.userLWSPods(ctx, namespace)
		if err != nil || len(pods) != 1 || !podReady(&pods[0]) {
			return false, nil
		}
		u.pods = map[string]types.UID{pods[0].Name: pods[0].UID}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the leader pod of LeaderWorkerSet %s/%s not ready within %s", namespace, userLWSName, userLWSReadyWait)
	}
	t.Logf("user LeaderWorkerSet %s/%s with its leader StatefulSet and pod %v ready on the previous release", namespace, userLWSName, u.pods)
	return u
}

// check fails unless the LeaderWorkerSet, its StatefulSet and pods are the objects of before
// and the pods still ready; then it stops the stand-in.
func (u *userLWS) check(ctx context.Context, t *testing.T, e *env) {
	t.Helper()
	defer func() { _ = u.standIn.Close() }()
	lws, err := e.dyn.Resource(live.LeaderWorkerSets).Namespace(u.namespace).Get(ctx, userLWSName, metav1.GetOptions{})
	switch {
	case err != nil:
		t.Errorf("the user's LeaderWorkerSet after the upgrade: %v", err)
	case lws.GetUID() != u.lws || lws.GetDeletionTimestamp() != nil:
		t.Errorf("the user's LeaderWorkerSet after the upgrade: UID %s (was %s), being deleted: %v", lws.GetUID(), u.lws, lws.GetDeletionTimestamp() != nil)
	}
	sts, err := e.kube.AppsV1().StatefulSets(u.namespace).Get(ctx, userLWSName, metav1.GetOptions{})
	switch {
	case err != nil:
		t.Errorf("its leader StatefulSet after the upgrade: %v", err)
	case sts.UID != u.leader:
		t.Errorf("its leader StatefulSet after the upgrade: UID %s (was %s)", sts.UID, u.leader)
	}
	pods, err := e.userLWSPods(ctx, u.namespace)
	if err != nil {
		t.Errorf("its pods after the upgrade: %v", err)
		return
	}
	now := map[string]types.UID{}
	for i := range pods {
		now[pods[i].Name] = pods[i].UID
		if !podReady(&pods[i]) {
			t.Errorf("pod %s/%s not ready after the upgrade", u.namespace, pods[i].Name)
		}
	}
	if fmt.Sprint(now) != fmt.Sprint(u.pods) {
		t.Errorf("the user's LeaderWorkerSet's pods after the upgrade: %v, before: %v (replaced)", now, u.pods)
	}
	t.Logf("user LeaderWorkerSet %s/%s, its StatefulSet and pods %v kept through the upgrade", u.namespace, userLWSName, now)
}

func (e *env) userLWSPods(ctx context.Context, namespace string) ([]corev1.Pod, error) {
	list, err := e.kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: lwsNameLabel + "=" + userLWSName})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil
		}
	}
	return false
}

// startWebhookStandIn answers the LWS controller's webhooks in its place: it listens on the
// webhook Service's ClusterIP (a loopback address on the local cluster), where the API server
// calls it, with the certificate of the Secret webhook-server-cert, and allows every request
// unchanged.
func (e *env) startWebhookStandIn(ctx context.Context) (*http.Server, error) {
	svc, err := e.kube.CoreV1().Services(e.operatorNS).Get(ctx, lwsWebhookService, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(svc.Spec.ClusterIP); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("the webhook Service's ClusterIP %q is not a loopback address (the local cluster's service range)", svc.Spec.ClusterIP)
	}
	secret, err := e.kube.CoreV1().Secrets(e.operatorNS).Get(ctx, webhookSecret, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(secret.Data[corev1.TLSCertKey], secret.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return nil, fmt.Errorf("Secret %s: %w", webhookSecret, err)
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(svc.Spec.ClusterIP, fmt.Sprint(svc.Spec.Ports[0].Port)))
	if err != nil {
		return nil, err
	}
	server := &http.Server{
		Handler:           http.HandlerFunc(live.AllowAdmission),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := server.ServeTLS(listener, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Printf("LWS webhook stand-in: %v\n", err)
		}
	}()
	return server, nil
}
