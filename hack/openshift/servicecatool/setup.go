package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
)

const (
	// The controllers' namespace and ServiceAccount (bindata/assets/ns.yaml, sa.yaml).
	namespace      = "openshift-service-ca"
	serviceAccount = "service-ca"
	// The key of the bundle in the signing Secret (after a rotation) and in signing-cabundle.
	bundleKey = "ca-bundle.crt"
	// The operator's signing CA: its name prefix and lifetime (pkg/operator: 790 days, so that a
	// rotation at half-life falls between two yearly upgrades). A local cluster lives far less
	// than the 395 days after which the operator would rotate it, so no rotation here.
	signerName     = "openshift-service-serving-signer"
	signerLifetime = 790 * 24 * time.Hour
)

// The operator's static resources, in the order it applies them (manageControllerNS,
// manageControllerResources).
var staticAssets = []string{"ns.yaml", "clusterrole.yaml", "clusterrolebinding.yaml", "role.yaml", "rolebinding.yaml", "sa.yaml"}

type setupOptions struct {
	kubeconfig, assets, out string
	tokenDuration, timeout  time.Duration
}

func setup(ctx context.Context, o setupOptions) error {
	if o.kubeconfig == "" || o.assets == "" || o.out == "" {
		return fmt.Errorf("--kubeconfig, --assets and --out are required")
	}
	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	// The operator's events would go to its own pod; here only what changed is printed.
	recorder := events.NewInMemoryRecorder("service-ca-setup", clock.RealClock{})
	asset := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(o.assets, name)) }

	for _, r := range resourceapply.ApplyDirectly(ctx, resourceapply.NewKubeClientHolder(client), recorder, resourceapply.NewResourceCache(), asset, staticAssets...) {
		if r.Error != nil {
			return fmt.Errorf("apply %s: %w", r.File, r.Error)
		}
		if r.Changed {
			fmt.Printf("applied %s (%s)\n", r.File, strings.TrimPrefix(r.Type, "*"))
		}
	}
	secret, err := signingSecret(ctx, client, recorder, asset)
	if err != nil {
		return err
	}
	bundle, err := signingBundle(ctx, client, recorder, asset, secret)
	if err != nil {
		return err
	}

	// What the Deployment of bindata/assets/deployment.yaml mounts, at the same names.
	files := map[string][]byte{
		"signing-key/tls.crt":           secret.Data[corev1.TLSCertKey],
		"signing-key/tls.key":           secret.Data[corev1.TLSPrivateKeyKey],
		"signing-cabundle/" + bundleKey: bundle,
		"serviceaccount/namespace":      []byte(namespace),
	}
	if intermediate := secret.Data["intermediate-ca.crt"]; len(intermediate) > 0 {
		files["signing-key/intermediate-ca.crt"] = intermediate
	}
	// The ServiceAccount volume's ca.crt is the namespace's kube-root-ca.crt, which the
	// controller manager publishes shortly after the namespace appears.
	var rootCA string
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, o.timeout, true, func(ctx context.Context) (bool, error) {
		cm, err := client.CoreV1().ConfigMaps(namespace).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		rootCA = cm.Data["ca.crt"]
		return rootCA != "", nil
	})
	if err != nil {
		return fmt.Errorf("wait for ConfigMap %s/kube-root-ca.crt: %w", namespace, err)
	}
	files["serviceaccount/ca.crt"] = []byte(rootCA)
	for name, data := range files {
		if err := writeFile(filepath.Join(o.out, name), data); err != nil {
			return err
		}
	}
	return writeKubeconfig(ctx, client, config, filepath.Join(o.out, "kubeconfig"), o.tokenDuration)
}

// signingSecret is the operator's manageSignerCA for a cluster without the Secret: a new
// self-signed CA named like the operator's, in the Secret of bindata/assets/signing-secret.yaml.
// An existing Secret with a certificate is kept.
func signingSecret(ctx context.Context, client kubernetes.Interface, recorder events.Recorder, asset resourceapply.AssetFunc) (*corev1.Secret, error) {
	raw, err := asset("signing-secret.yaml")
	if err != nil {
		return nil, err
	}
	secret := resourceread.ReadSecretV1OrDie(raw)
	existing, err := client.CoreV1().Secrets(secret.Namespace).Get(ctx, secret.Name, metav1.GetOptions{})
	switch {
	case err == nil && len(existing.Data[corev1.TLSCertKey]) > 0 && len(existing.Data[corev1.TLSPrivateKeyKey]) > 0:
		return existing, nil
	case err != nil && !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("get Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	ca, err := crypto.MakeSelfSignedCAConfig(fmt.Sprintf("%s@%d", signerName, time.Now().Unix()), signerLifetime)
	if err != nil {
		return nil, fmt.Errorf("make the signing CA: %w", err)
	}
	var certPEM, keyPEM bytes.Buffer
	if err := ca.WriteCertConfig(&certPEM, &keyPEM); err != nil {
		return nil, err
	}
	secret.Data = map[string][]byte{corev1.TLSCertKey: certPEM.Bytes(), corev1.TLSPrivateKeyKey: keyPEM.Bytes()}
	applied, _, err := resourceapply.ApplySecret(ctx, client.CoreV1(), recorder, secret)
	if err != nil {
		return nil, fmt.Errorf("apply Secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	fmt.Printf("created the signing CA %s in Secret %s/%s\n", ca.Certs[0].Subject.CommonName, secret.Namespace, secret.Name)
	return applied, nil
}

// signingBundle is the operator's manageSignerCABundle: ConfigMap signing-cabundle holds the
// Secret's bundle (after a rotation) or its certificate.
func signingBundle(ctx context.Context, client kubernetes.Interface, recorder events.Recorder, asset resourceapply.AssetFunc, secret *corev1.Secret) ([]byte, error) {
	raw, err := asset("signing-cabundle.yaml")
	if err != nil {
		return nil, err
	}
	cm := resourceread.ReadConfigMapV1OrDie(raw)
	bundle := secret.Data[bundleKey]
	if len(bundle) == 0 {
		bundle = secret.Data[corev1.TLSCertKey]
	}
	cm.Data = map[string]string{bundleKey: string(bundle)}
	if _, _, err := resourceapply.ApplyConfigMap(ctx, client.CoreV1(), recorder, cm); err != nil {
		return nil, fmt.Errorf("apply ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	return bundle, nil
}

// writeKubeconfig writes a kubeconfig that authenticates as the controllers' ServiceAccount with
// a bound token (TokenRequest), so they run with exactly the RBAC the operator grants them.
func writeKubeconfig(ctx context.Context, client kubernetes.Interface, admin *rest.Config, path string, duration time.Duration) error {
	seconds := int64(duration.Seconds())
	token, err := client.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, serviceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token of ServiceAccount %s/%s: %w", namespace, serviceAccount, err)
	}
	caData := admin.CAData
	if len(caData) == 0 && admin.CAFile != "" {
		if caData, err = os.ReadFile(admin.CAFile); err != nil {
			return err
		}
	}
	user := fmt.Sprintf("system:serviceaccount:%s:%s", namespace, serviceAccount)
	kubeconfig := clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"cluster": {Server: admin.Host, CertificateAuthorityData: caData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{user: {Token: token.Status.Token}},
		Contexts:       map[string]*clientcmdapi.Context{"service-ca": {Cluster: "cluster", AuthInfo: user, Namespace: namespace}},
		CurrentContext: "service-ca",
	}
	data, err := clientcmd.Write(kubeconfig)
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

// writeFile replaces path at once (a reader never sees half a file), readable by its owner only:
// it may hold a key or a token.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
