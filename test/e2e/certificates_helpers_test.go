package e2e

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/library-go/pkg/operator/resource/resourcehash"

	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

const (
	webhookServiceName = "lws-webhook-service"
	operatorCABundle   = "lws-operator-ca-bundle"
	operatorCASecret   = "lws-operator-ca"
)

// operandWebhook stands in for the LeaderWorkerSet controller's webhook server, which the local
// cluster cannot run (kwok's pods are not processes). It listens on the webhook Service's
// ClusterIP (a loopback address on the local cluster), where the API server calls it, and
// answers each connection as one of the Deployment's ready pods would: with the certificate of
// the Secret webhook-server-cert as it was when that pod was created (its hash annotation), the
// pods taken in turn. So the API server's TLS verification against the caBundles meets exactly
// the certificates the running pods would serve during a rollout.
type operandWebhook struct {
	server *http.Server
	// certs are the webhook Secret's versions seen, by the hash the operator puts on the pods.
	mu    sync.Mutex
	certs map[string]*tls.Certificate
	next  atomic.Uint64
	done  chan struct{}
	// listed is closed once the Secret's current version is recorded: a handshake before
	// that would find the pods' certificate unknown.
	listed     chan struct{}
	listedOnce sync.Once
}

func startOperandWebhook(ctx context.Context) *operandWebhook {
	svc, err := fw.kube.CoreV1().Services(fw.namespace).Get(ctx, webhookServiceName, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(net.ParseIP(svc.Spec.ClusterIP).IsLoopback()).To(BeTrue(),
		"the webhook Service's ClusterIP %s must be a loopback address (the local cluster's service range) for the suite to serve it", svc.Spec.ClusterIP)
	listener, err := net.Listen("tcp", net.JoinHostPort(svc.Spec.ClusterIP, fmt.Sprint(svc.Spec.Ports[0].Port)))
	Expect(err).NotTo(HaveOccurred(), "listen on the webhook Service's address")

	w := &operandWebhook{certs: map[string]*tls.Certificate{}, done: make(chan struct{}), listed: make(chan struct{})}
	watchCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() { <-w.done; cancel() }()
	go w.recordSecretVersions(watchCtx)
	select {
	case <-w.listed:
	case <-ctx.Done():
		close(w.done)
		Fail("the stand-in webhook never listed Secret " + webhookSecretName)
	}

	w.server = &http.Server{
		Handler:           http.HandlerFunc(live.AllowAdmission),
		TLSConfig:         &tls.Config{GetCertificate: w.certificate, MinVersion: tls.VersionTLS12},
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){}, // HTTP/1.1 only
		ReadHeaderTimeout: 10 * time.Second,
	}
	// One connection per request: every request meets a pod chosen anew, as behind a Service.
	w.server.SetKeepAlivesEnabled(false)
	go func() {
		if err := w.server.ServeTLS(listener, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(GinkgoWriter, "operand webhook stand-in: %v\n", err)
		}
	}()
	return w
}

func (w *operandWebhook) stop() {
	close(w.done)
	_ = w.server.Close()
}

// recordSecretVersions watches the webhook Secret and keeps every version's certificate.
func (w *operandWebhook) recordSecretVersions(ctx context.Context) {
	selector := fields.OneTermEqualSelector("metadata.name", webhookSecretName).String()
	for ctx.Err() == nil {
		list, err := fw.kube.CoreV1().Secrets(fw.namespace).List(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			continue
		}
		for i := range list.Items {
			w.record(&list.Items[i])
		}
		w.listedOnce.Do(func() { close(w.listed) })
		watch, err := fw.kube.CoreV1().Secrets(fw.namespace).Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: list.ResourceVersion})
		if err != nil {
			continue
		}
		for ev := range watch.ResultChan() {
			if s, ok := ev.Object.(*corev1.Secret); ok {
				w.record(s)
			}
		}
	}
}

func (w *operandWebhook) record(s *corev1.Secret) {
	hash, err := resourcehash.GetSecretHash(s)
	if err != nil {
		return
	}
	cert, err := tls.X509KeyPair(s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.certs[hash] = &cert
}

// certificate picks the next ready pod of the Deployment and serves its certificate.
func (w *operandWebhook) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	d, err := fw.kube.AppsV1().Deployments(fw.namespace).Get(hello.Context(), deploymentName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pods, err := fw.kube.CoreV1().Pods(fw.namespace).List(hello.Context(), metav1.ListOptions{
		LabelSelector: labels.Set(d.Spec.Selector.MatchLabels).String()})
	if err != nil {
		return nil, err
	}
	var ready []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && podReady(&p) {
			ready = append(ready, p)
		}
	}
	if len(ready) == 0 {
		return nil, fmt.Errorf("no ready pod of Deployment %s", deploymentName)
	}
	pod := ready[w.next.Add(1)%uint64(len(ready))]
	hash := pod.Annotations[webhookSecretHash]
	w.mu.Lock()
	defer w.mu.Unlock()
	cert, ok := w.certs[hash]
	if !ok {
		return nil, fmt.Errorf("pod %s mounts a webhook certificate (hash %s) the stand-in never saw", pod.Name, hash)
	}
	return cert, nil
}

// admissionProbe creates a LeaderWorkerSet with a server-side dry run, over and over, and
// counts the outcomes: the API server calls both LeaderWorkerSet webhooks (failurePolicy
// Fail) for each, so a failure is a webhook the API server could not call or did not trust.
type admissionProbe struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	failures   []string
	stop       context.CancelFunc
	done       chan struct{}
}

func startAdmissionProbe(ctx context.Context) *admissionProbe {
	probeCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &admissionProbe{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		ticker := time.NewTicker(200 * time.Millisecond)
		defer ticker.Stop()
		for {
			_, err := fw.dynamic.Resource(gvrLWS).Namespace(fw.namespace).Create(probeCtx, userLeaderWorkerSet(fw.namespace), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if probeCtx.Err() != nil {
				return
			}
			if err != nil {
				p.failed.Add(1)
				p.mu.Lock()
				p.failures = append(p.failures, fmt.Sprintf("%s: %v", time.Now().Format(time.RFC3339Nano), err))
				p.mu.Unlock()
			} else {
				p.ok.Add(1)
			}
			select {
			case <-probeCtx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
	return p
}

// finish stops the probe and returns the successes and the failures' messages.
func (p *admissionProbe) finish() (int64, []string) {
	p.stop()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ok.Load(), append([]string(nil), p.failures...)
}

// servingSource is the reason of the ServingCertificates condition.
func servingSource(cr *lwsoperatorv1.LeaderWorkerSetOperator) string {
	c := findCondition(cr, lwsoperatorv1.ConditionServingCertificates)
	if c == nil {
		return ""
	}
	return c.Reason
}

// waitServingFrom waits until status says the pods serve the source's certificates and the
// switch is over.
func waitServingFrom(ctx context.Context, source lwsoperatorv1.CertificateSource) *lwsoperatorv1.LeaderWorkerSetOperator {
	return waitForCR(ctx, settleTimeout, "serving certificates from "+string(source), func(g Gomega, cr *lwsoperatorv1.LeaderWorkerSetOperator) {
		expectCondition(g, cr, lwsoperatorv1.ConditionServingCertificates, "True", string(source))
		expectCondition(g, cr, "Progressing", "False", "")
		expectCondition(g, cr, "Available", "True", "")
		expectCondition(g, cr, "Degraded", "False", "")
	})
}

// operatorCABundleData is the operator's CA bundle (source Operator).
func operatorCABundleData(ctx context.Context, g Gomega) []byte {
	cm, err := fw.kube.CoreV1().ConfigMaps(fw.namespace).Get(ctx, operatorCABundle, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred(), "the operator's CA bundle ConfigMap %s", operatorCABundle)
	g.Expect(cm.Data).To(HaveKeyWithValue("ca-bundle.crt", Not(BeEmpty())))
	return []byte(cm.Data["ca-bundle.crt"])
}

// serviceCAConfigMap is the ConfigMap OpenShift publishes in every namespace with its service
// CA's bundle (key service-ca.crt), which the operator takes as the sign of a service CA.
const serviceCAConfigMap = "openshift-service-ca.crt"

// serviceCAPublished says whether the operator's namespace has OpenShift's service CA bundle.
func serviceCAPublished(ctx context.Context) bool {
	cm, err := fw.kube.CoreV1().ConfigMaps(fw.namespace).Get(ctx, serviceCAConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return cm.Data["service-ca.crt"] != ""
}

// serviceCABundleData is OpenShift's service CA bundle (source ServiceCA).
func serviceCABundleData(ctx context.Context, g Gomega) []byte {
	cm, err := fw.kube.CoreV1().ConfigMaps(fw.namespace).Get(ctx, serviceCAConfigMap, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred(), "the service CA bundle ConfigMap %s", serviceCAConfigMap)
	g.Expect(cm.Data).To(HaveKeyWithValue("service-ca.crt", Not(BeEmpty())))
	return []byte(cm.Data["service-ca.crt"])
}

// setCertificateSource sets spec.certificates.source; empty unsets spec.certificates.
func setCertificateSource(ctx context.Context, source lwsoperatorv1.CertificateSource) {
	By(fmt.Sprintf("setting spec.certificates.source %q", source))
	updateCR(ctx, func(cr *lwsoperatorv1.LeaderWorkerSetOperator) {
		if source == "" {
			cr.Spec.Certificates = nil
			return
		}
		cr.Spec.Certificates = &lwsoperatorv1.Certificates{Source: source}
	})
}
