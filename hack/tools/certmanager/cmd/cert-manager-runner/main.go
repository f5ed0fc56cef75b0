// Command cert-manager-runner runs a subset of cert-manager out of cluster,
// against a kubeconfig, for the local live cluster (hack/local-cluster.sh).
//
// The local cluster's pods are fake (kwok), so cert-manager cannot run as a
// Deployment. This program links cert-manager's controller packages directly
// and runs, in one process:
//
//   - the issuing controllers for the SelfSigned and CA issuers (Issuer and
//     ClusterIssuer readiness, CertificateRequest approval and signing, and
//     the Certificate state machine: trigger, key manager, request manager,
//     issuing, readiness, revision manager);
//   - the cainjector, which copies a Certificate's CA into
//     Validating/MutatingWebhookConfigurations and CRD conversion webhooks
//     annotated with cert-manager.io/inject-ca-from (and APIServices).
//
// The ACME, Vault and Venafi issuers, the ingress/gateway shims and the
// cert-manager admission webhook are deliberately left out: the Venafi
// dependency is not downloadable here, and the rest needs real networking.
// Leader election is off: exactly one runner is started by the script.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	kscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	apireg "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cmscheme "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned/scheme"
	controllerpkg "github.com/cert-manager/cert-manager/pkg/controller"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"

	// Controllers register themselves with controllerpkg.Register in init().
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"

	// Issuer implementations used by the (cluster)issuers controllers to set
	// the Ready condition. Never import pkg/issuer/venafi (its dependency is
	// refused by the module proxy) nor acme/vault (not needed locally).
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

// enabledControllers are the cert-manager controllers this runner starts. A
// name missing from controllerpkg.Known() is a bug (an import is missing).
var enabledControllers = []string{
	"issuers",
	"clusterissuers",
	"certificaterequests-approver",
	"certificaterequests-issuer-ca",
	"certificaterequests-issuer-selfsigned",
	"certificates-trigger",
	"certificates-key-manager",
	"certificates-request-manager",
	"certificates-issuing",
	"certificates-readiness",
	"certificates-revision-manager",
}

func main() {
	var (
		kubeconfig               string
		clusterResourceNamespace string
		workers                  int
		withCAInjector           bool
		withControllers          bool
		readyFile                string
	)
	// Own flag set: controller-runtime registers --kubeconfig on the global
	// one in an init function.
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	klog.InitFlags(fs)
	fs.StringVar(&kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to run against")
	fs.StringVar(&clusterResourceNamespace, "cluster-resource-namespace", "kube-system",
		"namespace holding the Secrets referenced by ClusterIssuers")
	fs.IntVar(&workers, "workers", 2, "workers per controller")
	fs.BoolVar(&withControllers, "controllers", true, "run the issuing controllers")
	fs.BoolVar(&withCAInjector, "cainjector", true, "run the cainjector")
	fs.StringVar(&readyFile, "ready-file", "",
		"file written once every informer cache has synced (hack/local-cluster.sh waits for it)")
	_ = fs.Parse(os.Args[1:])

	if kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "--kubeconfig (or KUBECONFIG) is required")
		os.Exit(2)
	}

	// Stop cleanly on TERM/INT: hack/local-cluster.sh stops the runner with TERM.
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	ctx = logf.NewContext(ctx, logf.Log, "cert-manager-runner")
	// controller-runtime logs through its own global logger; route it to klog.
	ctrl.SetLogger(klog.NewKlogr())

	if readyFile != "" {
		_ = os.Remove(readyFile) // a file left by a previous run says nothing about this one
	}
	var wg, synced sync.WaitGroup
	errs := make(chan error, 2)
	if withControllers {
		wg.Add(1)
		synced.Add(1)
		go func() {
			defer wg.Done()
			if err := runControllers(ctx, kubeconfig, clusterResourceNamespace, workers, synced.Done); err != nil {
				errs <- fmt.Errorf("controllers: %w", err)
			}
		}()
	}
	if withCAInjector {
		wg.Add(1)
		synced.Add(1)
		go func() {
			defer wg.Done()
			if err := runCAInjector(ctx, kubeconfig, synced.Done); err != nil {
				errs <- fmt.Errorf("cainjector: %w", err)
			}
		}()
	}

	go func() {
		synced.Wait()
		if ctx.Err() != nil {
			return
		}
		klog.Info("all informer caches synced: cert-manager-runner is ready")
		if readyFile != "" {
			if err := os.WriteFile(readyFile, []byte("ready\n"), 0o644); err != nil {
				errs <- fmt.Errorf("writing ready file: %w", err)
			}
		}
	}()

	// Either everything stops because of a signal, or one half fails: then
	// exit non-zero so the failure is visible in the log and the pid is gone.
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case err := <-errs:
		klog.ErrorS(err, "cert-manager-runner failed")
		klog.Flush()
		os.Exit(1)
	case <-done:
	}
	klog.Info("cert-manager-runner stopped")
	klog.Flush()
}

// runControllers builds cert-manager's controller context the way its
// controller binary does (ContextFactory), constructs each enabled
// controller, starts the shared informer factories and runs the controllers
// until ctx is cancelled.
func runControllers(ctx context.Context, kubeconfig, clusterResourceNamespace string, workers int, synced func()) error {
	opts := controllerpkg.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		IssuerOptions: controllerpkg.IssuerOptions{
			ClusterResourceNamespace: clusterResourceNamespace,
		},
		CertificateOptions: controllerpkg.CertificateOptions{
			// Same defaults as cert-manager's controller configuration.
			CopiedAnnotationPrefixes: []string{
				"*", "-kubectl.kubernetes.io/", "-fluxcd.io/", "-argocd.argoproj.io/",
			},
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
		IngressShimOptions: controllerpkg.IngressShimOptions{
			GatewayAPIExtraProtocols: sets.New[string](),
		},
	}
	factory, err := controllerpkg.NewContextFactory(ctx, opts)
	if err != nil {
		return fmt.Errorf("building controller context: %w", err)
	}

	known := controllerpkg.Known()
	type named struct {
		name string
		ctrl controllerpkg.Interface
	}
	var ctrls []named
	for _, name := range enabledControllers {
		fn, ok := known[name]
		if !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("controller %q is not registered (known: %v)", name, names)
		}
		c, err := fn(factory)
		if err != nil {
			return fmt.Errorf("constructing controller %q: %w", name, err)
		}
		ctrls = append(ctrls, named{name, c})
	}

	// The informer factories are shared by every Context the factory builds;
	// build one more Context only to reach them and start them, after all
	// controllers have registered their informers.
	shared, err := factory.Build("informers")
	if err != nil {
		return err
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	go func() {
		shared.KubeSharedInformerFactory.WaitForCacheSync(ctx.Done())
		shared.SharedInformerFactory.WaitForCacheSync(ctx.Done())
		if ctx.Err() == nil {
			synced()
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan error, len(ctrls))
	for _, c := range ctrls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			klog.InfoS("starting controller", "controller", c.name)
			if err := c.ctrl.Run(workers, ctx); err != nil {
				errs <- fmt.Errorf("controller %q: %w", c.name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// runCAInjector runs cert-manager's cainjector reconcilers in a
// controller-runtime manager, as cert-manager's cainjector binary does.
func runCAInjector(ctx context.Context, kubeconfig string, synced func()) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg = util.RestConfigWithUserAgent(cfg, "cainjector")

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		kscheme.AddToScheme, cmscheme.AddToScheme, apiext.AddToScheme, apireg.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return err
		}
	}

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		// Secrets are only watched as metadata (builder.OnlyMetadata in
		// cainjector's setup); reading a Secret's data goes to the apiserver.
		Client: client.Options{Cache: &client.CacheOptions{
			DisableFor: []client.Object{&corev1.Secret{}},
		}},
		// No metrics or health endpoints: nothing extra listens locally.
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}

	if err := cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			cainjector.MutatingWebhookConfigurationName:   true,
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.APIServiceName:                     true,
			cainjector.CustomResourceDefinitionName:       true,
		},
	}); err != nil {
		return fmt.Errorf("registering injectors: %w", err)
	}
	go func() {
		// Blocks until the manager has started its cache and it has synced.
		if mgr.GetCache().WaitForCacheSync(ctx) {
			synced()
		}
	}()
	return mgr.Start(ctx)
}
