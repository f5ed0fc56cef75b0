// Command servicecatool provides, for a local cluster that runs OpenShift's service CA controllers
// (`service-ca-operator controller`, built unchanged from the tree pinned in
// hack/openshift/sources.tsv; hack/openshift/serviceca.sh), the two things OpenShift's other
// components provide around them:
//
//	setup    what the service CA operator (`service-ca-operator operator`) does before it deploys
//	         the controllers: their namespace, ServiceAccount and RBAC from the operator's own
//	         manifests (bindata/assets of the tree), the signing CA in Secret
//	         openshift-service-ca/signing-key and its bundle in ConfigMap signing-cabundle, made
//	         with library-go's crypto as the operator makes them; then, as the kubelet would, the
//	         files the controllers' pod mounts (the Secret, the ConfigMap, the ServiceAccount's
//	         ca.crt and namespace) and a kubeconfig with a token of that ServiceAccount.
//	publish  what OpenShift's kube-controller-manager adds to Kubernetes' (its
//	         service-ca-cert-publisher): ConfigMap openshift-service-ca.crt in every namespace,
//	         annotated for the service CA's injector, which fills in the CA bundle.
//
// The operator itself is not run: it needs the ServiceCA, ClusterOperator, ClusterVersion and
// FeatureGate APIs with objects only a cluster version operator writes, and it would deploy the
// controllers as a Deployment, which the local cluster's simulated nodes would not run.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: servicecatool setup|publish [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "setup":
		var o setupOptions
		fs := flag.NewFlagSet(cmd, flag.ExitOnError)
		fs.StringVar(&o.kubeconfig, "kubeconfig", "", "the cluster admin's kubeconfig")
		fs.StringVar(&o.assets, "assets", "", "the operator's manifests: bindata/assets of the service-ca-operator tree")
		fs.StringVar(&o.out, "out", "", "folder for the mounted files and the controllers' kubeconfig")
		fs.DurationVar(&o.tokenDuration, "token-duration", 24*time.Hour, "lifetime of the ServiceAccount token in the kubeconfig")
		fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "how long to wait for the cluster (kube-root-ca.crt in the namespace)")
		_ = fs.Parse(args)
		err = setup(ctx, o)
	case "publish":
		var kubeconfig string
		fs := flag.NewFlagSet(cmd, flag.ExitOnError)
		fs.StringVar(&kubeconfig, "kubeconfig", "", "the kubeconfig of the publisher (may create and update ConfigMaps everywhere)")
		_ = fs.Parse(args)
		err = publish(ctx, kubeconfig)
	default:
		err = fmt.Errorf("unknown command %q (setup or publish)", cmd)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "servicecatool %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
