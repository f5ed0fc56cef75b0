package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

const (
	fieldManager   = "llm-infra-bench"
	operatorCRDRes = "leaderworkersetoperators"
	crName         = "cluster"
	configMapName  = "lws-manager-config"
	deploymentName = "lws-controller-manager"
	serviceMonCRD  = "servicemonitors.monitoring.coreos.com"
	lwsCRDName     = "leaderworkersets.leaderworkerset.x-k8s.io"
)

var (
	crGVR  = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: operatorCRDRes}
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// objRef names one object: an operand object, or one of deploy/.
type objRef struct {
	asset     string
	gvr       schema.GroupVersionResource
	kind      string
	namespace string
	name      string
}

func (o objRef) String() string {
	if o.namespace == "" {
		return o.kind + " " + o.name
	}
	return o.kind + " " + o.namespace + "/" + o.name
}

// matches says whether an audit event is about this object.
func (o objRef) matches(e *live.AuditEvent) bool {
	r := e.ObjectRef
	return r != nil && r.Resource == o.gvr.Resource && r.APIGroup == o.gvr.Group &&
		r.Namespace == o.namespace && r.Name == o.name && r.Subresource == ""
}

func (b *bench) get(ctx context.Context, o objRef) (*unstructured.Unstructured, error) {
	if o.namespace == "" {
		return b.dyn.Resource(o.gvr).Get(ctx, o.name, metav1.GetOptions{})
	}
	return b.dyn.Resource(o.gvr).Namespace(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
}

func (b *bench) del(ctx context.Context, o objRef, uid types.UID) error {
	opts := metav1.DeleteOptions{}
	if uid != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	if o.namespace == "" {
		return b.dyn.Resource(o.gvr).Delete(ctx, o.name, opts)
	}
	return b.dyn.Resource(o.gvr).Namespace(o.namespace).Delete(ctx, o.name, opts)
}

// readManifests parses every object of a YAML file (documents separated by ---).
func readManifests(path string, replace *strings.Replacer) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if replace != nil {
		raw = []byte(replace.Replace(string(raw)))
	}
	dec := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var out []*unstructured.Unstructured
	for {
		doc, err := dec.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &obj.Object); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		out = append(out, obj)
	}
	return out, nil
}

func refOf(asset string, obj *unstructured.Unstructured) objRef {
	gvr, _ := meta.UnsafeGuessKindToResource(obj.GroupVersionKind())
	return objRef{asset: asset, gvr: gvr, kind: obj.GetKind(), namespace: obj.GetNamespace(), name: obj.GetName()}
}

// operandObjects are the objects the operator must apply: every manifest of bindata/assets/lws
// (the ServiceMonitor only when its CRD is installed, as the operator does) and the operand's
// ConfigMap, which the operator builds in code.
func (b *bench) operandObjects(ctx context.Context) ([]objRef, error) {
	files, err := filepath.Glob(filepath.Join(b.root, "bindata", "assets", "lws", "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	_, smErr := b.dyn.Resource(crdGVR).Get(ctx, serviceMonCRD, metav1.GetOptions{})
	withServiceMonitor := smErr == nil
	replace := strings.NewReplacer("${NAMESPACE}", b.namespace, "${OPERAND_IMAGE}", b.operandImage)
	var refs []objRef
	for _, f := range files {
		objs, err := readManifests(f, replace)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			if obj.GetKind() == "ServiceMonitor" && !withServiceMonitor {
				continue
			}
			refs = append(refs, refOf(filepath.Base(f), obj))
		}
	}
	refs = append(refs, objRef{asset: "(code) " + configMapName, gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		kind: "ConfigMap", namespace: b.namespace, name: configMapName})
	return refs, nil
}

// applyObject server-side applies one object as the bench's field manager.
func (b *bench) applyObject(ctx context.Context, obj *unstructured.Unstructured) error {
	gvr, _ := meta.UnsafeGuessKindToResource(obj.GroupVersionKind())
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	force := true
	opts := metav1.PatchOptions{FieldManager: fieldManager, Force: &force}
	if ns := obj.GetNamespace(); ns != "" {
		_, err = b.dyn.Resource(gvr).Namespace(ns).Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
	} else {
		_, err = b.dyn.Resource(gvr).Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts)
	}
	if err != nil {
		return fmt.Errorf("apply %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}

// installDeploy applies deploy/: the CRD first (and waits until it is Established), then every
// other manifest but 10_* (the operator's Deployment: here the operator is a local process).
func (b *bench) installDeploy(ctx context.Context) error {
	files, err := filepath.Glob(filepath.Join(b.root, "deploy", "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		base := filepath.Base(f)
		if !strings.HasPrefix(base, "00_") {
			continue
		}
		objs, err := readManifests(f, nil)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if err := b.applyObject(ctx, obj); err != nil {
				return err
			}
			if obj.GetKind() == "CustomResourceDefinition" {
				if err := b.waitCRDEstablished(ctx, obj.GetName(), time.Minute); err != nil {
					return err
				}
			}
		}
	}
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasPrefix(base, "00_") || strings.HasPrefix(base, "10_") {
			continue
		}
		objs, err := readManifests(f, nil)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if err := b.applyObject(ctx, obj); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *bench) waitCRDEstablished(ctx context.Context, name string, timeout time.Duration) error {
	return live.Poll(ctx, 100*time.Millisecond, timeout, func() (bool, error) {
		crd, err := b.dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
}

// writeSAKubeconfig writes a kubeconfig that authenticates as the operator's ServiceAccount
// with a token from the TokenRequest API (what `hack/local-cluster.sh sa-kubeconfig` does), so
// the operator gets exactly the RBAC of deploy/.
func (b *bench) writeSAKubeconfig(ctx context.Context, admin *rest.Config) error {
	return b.writeKubeconfigOf(ctx, admin, b.namespace, b.serviceAccount, b.saKubeconfig)
}

// writeKubeconfigOf writes to path a kubeconfig that authenticates as the ServiceAccount
// namespace/serviceAccount (a TokenRequest token).
func (b *bench) writeKubeconfigOf(ctx context.Context, admin *rest.Config, namespace, serviceAccount, path string) error {
	expiry := int64(24 * 3600)
	tr, err := b.kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, serviceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("token for ServiceAccount %s/%s: %w", namespace, serviceAccount, err)
	}
	ca := admin.CAData
	if len(ca) == 0 && admin.CAFile != "" {
		if ca, err = os.ReadFile(admin.CAFile); err != nil {
			return err
		}
	}
	user := "system:serviceaccount:" + namespace + ":" + serviceAccount
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["bench"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: ca, InsecureSkipTLSVerify: admin.Insecure}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["bench"] = &clientcmdapi.Context{Cluster: "bench", AuthInfo: user, Namespace: namespace}
	cfg.CurrentContext = "bench"
	return clientcmd.WriteToFile(*cfg, path)
}

// --- the LeaderWorkerSetOperator CR ---

func (b *bench) createCR(ctx context.Context) error {
	objs, err := readManifests(filepath.Join(b.root, "deploy", "examples", "leaderworkersetoperator_cluster.yaml"), nil)
	if err != nil {
		return err
	}
	if len(objs) != 1 {
		return fmt.Errorf("deploy/examples/leaderworkersetoperator_cluster.yaml: want one object, got %d", len(objs))
	}
	_, err = b.dyn.Resource(crGVR).Create(ctx, objs[0], metav1.CreateOptions{FieldManager: fieldManager})
	return err
}

func (b *bench) getCR(ctx context.Context) (*unstructured.Unstructured, error) {
	return b.dyn.Resource(crGVR).Get(ctx, crName, metav1.GetOptions{})
}

// condition returns a status condition of a CR, nil when it has none of that type.
func condition(cr *unstructured.Unstructured, condType string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == condType {
			return m
		}
	}
	return nil
}

func conditionStatus(cr *unstructured.Unstructured, condType string) string {
	s, _ := condition(cr, condType)["status"].(string)
	return s
}

func conditionsSummary(cr *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	var parts []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		parts = append(parts, fmt.Sprintf("%v=%v(%v)", m["type"], m["status"], m["reason"]))
	}
	return strings.Join(parts, " ")
}

// waitAvailable polls the CR every 100ms until Available=True and returns when it was seen.
func (b *bench) waitAvailable(ctx context.Context, timeout time.Duration) (time.Time, error) {
	var seen time.Time
	var last *unstructured.Unstructured
	err := live.Poll(ctx, 100*time.Millisecond, timeout, func() (bool, error) {
		cr, err := b.getCR(ctx)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		last = cr
		if conditionStatus(cr, "Available") == "True" {
			seen = time.Now()
			return true, nil
		}
		return false, nil
	})
	if err != nil && last != nil {
		err = fmt.Errorf("%w; conditions: %s", err, conditionsSummary(last))
	}
	return seen, err
}

// deleteCRAndWait deletes the CR and waits until it is gone (the finalizer ran) and every
// operand object but the LeaderWorkerSet CRD (kept on purpose) is gone.
func (b *bench) deleteCRAndWait(ctx context.Context, objects []objRef, timeout time.Duration) error {
	err := b.dyn.Resource(crGVR).Delete(ctx, crName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := live.Poll(ctx, 200*time.Millisecond, timeout, func() (bool, error) {
		_, err := b.getCR(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}); err != nil {
		return fmt.Errorf("the CR was not deleted: %w", err)
	}
	var remaining []string
	err = live.Poll(ctx, 250*time.Millisecond, timeout, func() (bool, error) {
		remaining = nil
		for _, o := range objects {
			if o.name == lwsCRDName {
				continue
			}
			_, err := b.get(ctx, o)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return false, err
			}
			remaining = append(remaining, o.String())
		}
		return len(remaining) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("operand objects left after deleting the CR: %v: %w", remaining, err)
	}
	return nil
}
