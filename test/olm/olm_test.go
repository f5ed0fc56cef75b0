// Package olm installs this operator through OLM itself (make test-olm, hack/test-olm.sh): OLM's
// olm and catalog operators, built from their pinned modules, run against a local cluster whose
// pods run for real; the previous release's bundle and this tree's are served as a file-based
// catalog by opm (test/olm/catalog); a Subscription installs the previous release, a
// LeaderWorkerSetOperator is made Available by it, and the upgrade OLM offers is approved and
// must end with this tree's CSV Succeeded, its operator running as the CSV's ServiceAccount, and
// the user's CR still there and Available.
package olm

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
	"github.com/llm-infra/llm-infra-operator/test/olm/catalog"
)

const (
	// namespace is the CSV's suggested namespace (operatorframework.io/suggested-namespace).
	namespace = "openshift-llm-infra-operator"
	container = "llm-infra-operator"
	source    = "llm-infra-operator-catalog"
	timeout   = 6 * time.Minute
)

var (
	csvGVR          = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "clusterserviceversions"}
	subscriptionGVR = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "subscriptions"}
	installPlanGVR  = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "installplans"}
	catalogGVR      = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "catalogsources"}
	groupGVR        = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1", Resource: "operatorgroups"}
	lwsOperatorGVR  = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "leaderworkersetoperators"}
	crdGVR          = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// env is what hack/test-olm.sh passes: where the two bundles are, the image each release's
// operator gets (the real-pod agent's table maps each to that release's binary), opm and the
// port the catalog is served on.
type env struct {
	previousBundle, currentBundle, previousImage, currentImage, opm, port string
}

func readEnv(t *testing.T) env {
	e := env{
		previousBundle: os.Getenv("OLM_PREVIOUS_BUNDLE"), currentBundle: os.Getenv("OLM_CURRENT_BUNDLE"),
		previousImage: os.Getenv("OLM_PREVIOUS_IMAGE"), currentImage: os.Getenv("OLM_CURRENT_IMAGE"),
		opm: os.Getenv("OLM_OPM"), port: os.Getenv("OLM_CATALOG_PORT"),
	}
	for name, v := range map[string]string{"OLM_PREVIOUS_BUNDLE": e.previousBundle, "OLM_CURRENT_BUNDLE": e.currentBundle,
		"OLM_PREVIOUS_IMAGE": e.previousImage, "OLM_CURRENT_IMAGE": e.currentImage, "OLM_OPM": e.opm, "OLM_CATALOG_PORT": e.port} {
		if v == "" {
			t.Fatalf("%s is not set: run this suite through make test-olm (hack/test-olm.sh)", name)
		}
	}
	return e
}

func TestInstallAndUpgradeThroughOLM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	e := readEnv(t)
	cfg, err := live.ConfigFromEnv("a local cluster with OLM's operators running (make test-olm)")
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(cfg)
	kube := kubernetes.NewForConfigOrDie(cfg)

	entries := serveCatalog(ctx, t, e)
	previous, current := entries[0], entries[1]
	t.Logf("catalog: %s, then %s (replaces %s, skipRange %q)", previous.Name, current.Name, current.Replaces, current.SkipRange)

	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	create(ctx, t, dyn, groupGVR, map[string]any{"metadata": map[string]any{"name": "llm-infra-operator", "namespace": namespace}, "spec": map[string]any{}})
	create(ctx, t, dyn, catalogGVR, map[string]any{"metadata": map[string]any{"name": source, "namespace": namespace},
		"spec": map[string]any{"sourceType": "grpc", "address": "127.0.0.1:" + e.port, "displayName": "llm-infra-operator (make test-olm)"}})
	// Manual approval: OLM would otherwise go on to the channel's head at once.
	create(ctx, t, dyn, subscriptionGVR, map[string]any{"metadata": map[string]any{"name": "llm-infra-operator", "namespace": namespace},
		"spec": map[string]any{"name": "llm-infra-operator", "channel": "stable", "source": source, "sourceNamespace": namespace,
			"installPlanApproval": "Manual", "startingCSV": previous.Name}})

	step(t, "the previous release installed", func() {
		approveInstallPlanFor(ctx, t, dyn, previous.Name)
		waitCSVSucceeded(ctx, t, dyn, previous.Name)
		waitOperatorPod(ctx, t, kube, e.previousImage)
	})

	var uid types.UID
	step(t, "a LeaderWorkerSetOperator made Available by the previous release", func() {
		cr := create(ctx, t, dyn, lwsOperatorGVR, map[string]any{"metadata": map[string]any{"name": "cluster"},
			"spec": map[string]any{"managementState": "Managed", "logLevel": "Normal", "operatorLogLevel": "Normal"}})
		uid = cr.GetUID()
		waitAvailable(ctx, t, dyn, 0)
	})

	step(t, "the upgrade OLM offers approved: this tree's release", func() {
		approveInstallPlanFor(ctx, t, dyn, current.Name)
		waitCSVSucceeded(ctx, t, dyn, current.Name)
		poll(ctx, t, "the previous CSV "+previous.Name+" removed", func() (bool, string) {
			_, err := dyn.Resource(csvGVR).Namespace(namespace).Get(ctx, previous.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
		waitOperatorPod(ctx, t, kube, e.currentImage)
		poll(ctx, t, "the Subscription at the latest", func() (bool, string) {
			sub, err := dyn.Resource(subscriptionGVR).Namespace(namespace).Get(ctx, "llm-infra-operator", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			csv, _, _ := unstructured.NestedString(sub.Object, "status", "currentCSV")
			state, _, _ := unstructured.NestedString(sub.Object, "status", "state")
			return csv == current.Name && state == "AtLatestKnown", fmt.Sprintf("currentCSV %q, state %q", csv, state)
		})
	})

	step(t, "the user's CR kept and Available under the new release, every CRD it owns served", func() {
		cr, err := dyn.Resource(lwsOperatorGVR).Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cr.GetUID() != uid {
			t.Fatalf("LeaderWorkerSetOperator cluster was recreated (uid %s, was %s)", cr.GetUID(), uid)
		}
		waitAvailable(ctx, t, dyn, cr.GetGeneration())
		csv, err := dyn.Resource(csvGVR).Namespace(namespace).Get(ctx, current.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The new operator reconciled the CR: the LeaderWorkerSet controller runs the operand
		// image the new CSV names.
		operandImage := csvEnv(t, csv, "RELATED_IMAGE_OPERAND_IMAGE")
		poll(ctx, t, "lws-controller-manager rolled to "+operandImage+" and available", func() (bool, string) {
			d, err := kube.AppsV1().Deployments(namespace).Get(ctx, "lws-controller-manager", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			img := d.Spec.Template.Spec.Containers[0].Image
			done := d.Status.ObservedGeneration == d.Generation && d.Status.UpdatedReplicas == *d.Spec.Replicas &&
				d.Status.AvailableReplicas == *d.Spec.Replicas && d.Status.Replicas == *d.Spec.Replicas
			return img == operandImage && done, fmt.Sprintf("image %s, replicas %d updated %d available %d", img, d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas)
		})
		owned, _, _ := unstructured.NestedSlice(csv.Object, "spec", "customresourcedefinitions", "owned")
		for _, o := range owned {
			name := o.(map[string]any)["name"].(string)
			crd, err := dyn.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("CRD %s the CSV owns: %v", name, err)
			}
			if !conditionTrue(crd, "Established") {
				t.Errorf("CRD %s is not Established", name)
			}
		}
	})
}

// serveCatalog renders the two bundles as a file-based catalog and serves it with opm on the
// given port until the test ends.
func serveCatalog(ctx context.Context, t *testing.T, e env) []catalog.Entry {
	out, entries, err := catalog.Render([]catalog.Bundle{
		{Dir: e.previousBundle, OperatorImage: e.previousImage, Container: container},
		{Dir: e.currentBundle, OperatorImage: e.currentImage, Container: container},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "configs", "llm-infra-operator"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "configs", "llm-infra-operator", "catalog.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	validate := exec.CommandContext(ctx, e.opm, "validate", filepath.Join(dir, "configs"))
	if msg, err := validate.CombinedOutput(); err != nil {
		t.Fatalf("opm validate refuses the catalog: %v\n%s", err, msg)
	}
	log, err := os.Create(filepath.Join(os.Getenv("OLM_LOGS"), "opm.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The port must be free: otherwise the dial below would reach whatever holds it (an opm left
	// by an earlier run) and the suite would test that catalog, not this one.
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+e.port, time.Second); err == nil {
		_ = c.Close()
		t.Fatalf("port %s is taken before opm starts: stop what listens there", e.port)
	}
	serve := exec.Command(e.opm, "serve", filepath.Join(dir, "configs"), "--port", e.port,
		"--termination-log", filepath.Join(dir, "termination-log"), "--pprof-addr", "127.0.0.1:0")
	serve.Stdout, serve.Stderr = log, log
	// opm dies with this process, also when it is killed before its cleanup runs.
	serve.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = serve.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = serve.Process.Kill()
		<-exited
		_ = log.Close()
	})
	poll(ctx, t, "opm serving on 127.0.0.1:"+e.port, func() (bool, string) {
		select {
		case <-exited:
			t.Fatalf("opm exited: %v; see %s", serve.ProcessState, log.Name())
		default:
		}
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+e.port, time.Second)
		if err != nil {
			return false, err.Error()
		}
		_ = c.Close()
		return true, ""
	})
	return entries
}

func step(t *testing.T, name string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	t.Logf("%s (%.1f s)", name, time.Since(start).Seconds())
}

func create(ctx context.Context, t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	u.SetAPIVersion(gvr.GroupVersion().String())
	u.SetKind(map[string]string{"operatorgroups": "OperatorGroup", "catalogsources": "CatalogSource", "subscriptions": "Subscription",
		"leaderworkersetoperators": "LeaderWorkerSetOperator"}[gvr.Resource])
	var r dynamic.ResourceInterface = dyn.Resource(gvr)
	if u.GetNamespace() != "" {
		r = dyn.Resource(gvr).Namespace(u.GetNamespace())
	}
	got, err := r.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return got
}

// poll checks cond every second until it holds or timeout passes; the failure says the last
// state seen.
func poll(ctx context.Context, t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(context.Context) (bool, error) {
		ok, state := cond()
		last = state
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v; last seen: %s", what, err, last)
	}
}

// approveInstallPlanFor approves the InstallPlan the Subscription points at once it installs
// csvName and waits for approval (OLM may make more than one plan for a CSV while its writes
// conflict; only the Subscription's is executed), then waits until it is Complete.
func approveInstallPlanFor(ctx context.Context, t *testing.T, dyn dynamic.Interface, csvName string) {
	t.Helper()
	var plan string
	poll(ctx, t, "the Subscription's InstallPlan for "+csvName+" waiting for approval", func() (bool, string) {
		sub, err := dyn.Resource(subscriptionGVR).Namespace(namespace).Get(ctx, "llm-infra-operator", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		name, _, _ := unstructured.NestedString(sub.Object, "status", "installPlanRef", "name")
		if name == "" {
			return false, "the Subscription names no InstallPlan; " + conditionsOf(sub)
		}
		p, err := dyn.Resource(installPlanGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		names, _, _ := unstructured.NestedStringSlice(p.Object, "spec", "clusterServiceVersionNames")
		phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
		plan = name
		return phase == "RequiresApproval" && slices.Contains(names, csvName),
			fmt.Sprintf("InstallPlan %s for %v, phase %q", name, names, phase)
	})
	patch := []byte(`{"spec":{"approved":true}}`)
	if _, err := dyn.Resource(installPlanGVR).Namespace(namespace).Patch(ctx, plan, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(ctx, t, "InstallPlan "+plan+" Complete", func() (bool, string) {
		p, err := dyn.Resource(installPlanGVR).Namespace(namespace).Get(ctx, plan, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		phase, _, _ := unstructured.NestedString(p.Object, "status", "phase")
		return phase == "Complete", "phase " + phase + " " + conditionsOf(p)
	})
}

func waitCSVSucceeded(ctx context.Context, t *testing.T, dyn dynamic.Interface, name string) {
	t.Helper()
	poll(ctx, t, "CSV "+name+" Succeeded", func() (bool, string) {
		csv, err := dyn.Resource(csvGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		phase, _, _ := unstructured.NestedString(csv.Object, "status", "phase")
		reason, _, _ := unstructured.NestedString(csv.Object, "status", "reason")
		msg, _, _ := unstructured.NestedString(csv.Object, "status", "message")
		return phase == "Succeeded", fmt.Sprintf("phase %s (%s: %s)", phase, reason, msg)
	})
}

// waitOperatorPod waits until the operator's Deployment has one pod, Ready, of image, running
// as the CSV's ServiceAccount, and no pod of another image (the old one gone).
func waitOperatorPod(ctx context.Context, t *testing.T, kube kubernetes.Interface, image string) {
	t.Helper()
	poll(ctx, t, "the operator's pod Ready with "+image, func() (bool, string) {
		pods, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=llm-infra-operator"})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		ready := 0
		for _, p := range pods.Items {
			img := ""
			for _, c := range p.Spec.Containers {
				if c.Name == container {
					img = c.Image
				}
			}
			isReady := false
			for _, c := range p.Status.Conditions {
				isReady = isReady || (c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue)
			}
			seen = append(seen, fmt.Sprintf("%s %s sa=%s ready=%v", p.Name, img, p.Spec.ServiceAccountName, isReady))
			if img == image && isReady && p.Spec.ServiceAccountName == "llm-infra-operator" {
				ready++
			}
		}
		return ready == 1 && len(pods.Items) == 1, strings.Join(seen, "; ")
	})
}

// waitAvailable waits until LeaderWorkerSetOperator cluster is Available=True at (at least)
// generation.
func waitAvailable(ctx context.Context, t *testing.T, dyn dynamic.Interface, generation int64) {
	t.Helper()
	poll(ctx, t, "LeaderWorkerSetOperator cluster Available", func() (bool, string) {
		cr, err := dyn.Resource(lwsOperatorGVR).Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		observed, _, _ := unstructured.NestedInt64(cr.Object, "status", "observedGeneration")
		return conditionTrue(cr, "Available") && observed >= generation, conditionsOf(cr)
	})
}

// csvEnv is the value of the operator container's variable name in the CSV's Deployment.
func csvEnv(t *testing.T, csv *unstructured.Unstructured, name string) string {
	t.Helper()
	deployments, _, _ := unstructured.NestedSlice(csv.Object, "spec", "install", "spec", "deployments")
	for _, d := range deployments {
		containers, _, _ := unstructured.NestedSlice(d.(map[string]any), "spec", "template", "spec", "containers")
		for _, c := range containers {
			c := c.(map[string]any)
			if c["name"] != container {
				continue
			}
			env, _ := c["env"].([]any)
			for _, v := range env {
				if v := v.(map[string]any); v["name"] == name {
					return v["value"].(string)
				}
			}
		}
	}
	t.Fatalf("CSV %s sets no %s", csv.GetName(), name)
	return ""
}

func conditionTrue(u *unstructured.Unstructured, condType string) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if c := c.(map[string]any); c["type"] == condType {
			return c["status"] == "True"
		}
	}
	return false
}

func conditionsOf(u *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var s []string
	for _, c := range conds {
		c := c.(map[string]any)
		s = append(s, fmt.Sprintf("%v=%v (%v: %v)", c["type"], c["status"], c["reason"], c["message"]))
	}
	return strings.Join(s, "; ")
}
