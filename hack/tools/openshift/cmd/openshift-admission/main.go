// openshift-admission runs, beside the local cluster's plain kube-apiserver, the parts of OpenShift
// that decide what a pod may do (hack/local-cluster.sh with OPENSHIFT=true):
//
//   - OpenShift's default SCCs and their RBAC (the manifests package), installed at start;
//   - the SCC admission plugin (apiserver-library-go's sccadmission, unchanged) as a mutating
//     webhook of pods on --listen (sccwebhook), asking the API server through
//     SubjectAccessReviews who may use which SCC (apiserver's delegating authorizer, as an
//     aggregated API server asks);
//   - the namespace annotator (nsalloc): the UID range, supplemental groups and SELinux level the
//     SCCs allocate from.
//
// The serving certificate is made at start; its CA goes to --ca-file for the webhook
// configuration. --ready-file is written once all of it works.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/openshift/apiserver-library-go/pkg/securitycontextconstraints/sccadmission"
	securityclient "github.com/openshift/client-go/security/clientset/versioned"
	securityinformers "github.com/openshift/client-go/security/informers/externalversions"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"

	"github.com/llm-infra/llm-infra-operator/hack/tools/openshift/manifests"
	"github.com/llm-infra/llm-infra-operator/hack/tools/openshift/nsalloc"
	"github.com/llm-infra/llm-infra-operator/hack/tools/openshift/sccwebhook"
)

func main() {
	var (
		kubeconfig = flag.String("kubeconfig", "", "kubeconfig of the cluster (a user allowed to create SubjectAccessReviews, write SCCs, RBAC and namespaces)")
		listen     = flag.String("listen", "127.0.0.1:0", "address of the webhook (HTTPS; path "+webhookPath+")")
		caFile     = flag.String("ca-file", "", "where to write the CA of the serving certificate (PEM), for the webhook configuration's caBundle")
		readyFile  = flag.String("ready-file", "", "file written when everything is ready")
		uidRange   = flag.String("uid-range", nsalloc.DefaultUIDRange, "UID range namespaces get blocks of")
		mcsRange   = flag.String("mcs-range", nsalloc.DefaultMCSRange, "SELinux MCS range namespaces get labels of")
		mcsPer     = flag.Int("mcs-labels-per-project", nsalloc.DefaultMCSLabelsPerProject, "MCS labels each namespace's block spans")
	)
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *listen, *caFile, *readyFile, *uidRange, *mcsRange, *mcsPer); err != nil {
		klog.ErrorS(err, "openshift-admission failed")
		os.Exit(1)
	}
}

const webhookPath = "/mutate-pods"

func run(ctx context.Context, kubeconfig, listen, caFile, readyFile, uidRange, mcsRange string, mcsPer int) error {
	if caFile == "" {
		return errors.New("--ca-file is required")
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	security, err := securityclient.NewForConfig(config)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}

	// The SCCs first: the plugin refuses every pod while one of the standard SCCs is missing.
	if err := manifests.Apply(ctx, dyn); err != nil {
		return fmt.Errorf("install the default SCCs: %w", err)
	}

	kubeInformers := informers.NewSharedInformerFactory(kube, 0)
	securityInformers := securityinformers.NewSharedInformerFactory(security, 0)
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: kube.AuthorizationV1(),
		// The cache times of an aggregated API server's delegated authorization
		// (apiserver's DelegatingAuthorizationOptions).
		AllowCacheTTL:       10 * time.Second,
		DenyCacheTTL:        10 * time.Second,
		WebhookRetryBackoff: options.DefaultAuthWebhookRetryBackoff(),
	}.New()
	if err != nil {
		return err
	}
	plugin := sccadmission.NewConstraint()
	sccadmission.NewInitializer(securityInformers.Security().V1().SecurityContextConstraints()).Initialize(plugin)
	plugin.SetExternalKubeInformerFactory(kubeInformers)
	plugin.SetAuthorizer(authz)
	if err := plugin.ValidateInitialization(); err != nil {
		return err
	}
	namespaces, err := nsalloc.New(kubeInformers.Core().V1().Namespaces(), kube.CoreV1().Namespaces(), uidRange, mcsRange, mcsPer)
	if err != nil {
		return err
	}

	kubeInformers.Start(ctx.Done())
	securityInformers.Start(ctx.Done())
	for typ, ok := range kubeInformers.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer of %v did not sync", typ)
		}
	}
	for typ, ok := range securityInformers.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer of %v did not sync", typ)
		}
	}
	if err := namespaces.Start(ctx); err != nil {
		return err
	}

	server, err := serve(ctx, listen, caFile, &sccwebhook.Handler{Plugin: plugin})
	if err != nil {
		return err
	}
	if readyFile != "" {
		if err := writeFile(readyFile, []byte("ready\n")); err != nil {
			return err
		}
	}
	klog.InfoS("ready", "listen", listen)
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return server.Shutdown(shutdown)
}

// serve starts the HTTPS server with a certificate for the listen address made now (client-go's
// self-signed pair: the serving certificate and the CA that signed it, whose PEM goes to caFile).
func serve(ctx context.Context, listen, caFile string, handler http.Handler) (*http.Server, error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, err
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return nil, fmt.Errorf("--listen %s: the host must be an IP address", listen)
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(host, []net.IP{ip}, nil)
	if err != nil {
		return nil, err
	}
	certs, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	// The pair's last certificate is its CA.
	ca, err := certutil.EncodeCertificates(certs[len(certs)-1])
	if err != nil {
		return nil, err
	}
	if err := writeFile(caFile, ca); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(webhookPath, handler)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	server := &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		if err := server.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "webhook server")
			os.Exit(1)
		}
	}()
	return server, nil
}

// writeFile writes atomically: a reader polling for the file never sees half of it.
func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
