package operands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

const (
	// How long an operand may take to come up on a loaded 2-core machine: real processes start,
	// PostgreSQL schemas are created, npx installs the MCP package from the local registry.
	readyTimeout = 5 * time.Minute
	poll         = 2 * time.Second
	fieldManager = "operands-e2e"
)

type framework struct {
	kube     kubernetes.Interface
	dyn      dynamic.Interface
	mapper   meta.RESTMapper
	services map[string]string
	samples  string
	bin      string
	http     *http.Client
	// scc: the cluster serves SecurityContextConstraints (OpenShift, or the local cluster with
	// OPENSHIFT=true): every spec's namespace is checked for pods SCC admission refused or
	// admitted other than under restricted-v2 with a user from the namespace's range.
	scc bool
}

var fw *framework

var _ = BeforeSuite(func() {
	cfg, err := live.ConfigFromEnv("a local cluster with real pods and the operator running (hack/test-operands-local.sh)")
	Expect(err).NotTo(HaveOccurred())
	cfg.QPS, cfg.Burst = 50, 100
	fw = &framework{
		kube:    kubernetes.NewForConfigOrDie(cfg),
		dyn:     dynamic.NewForConfigOrDie(cfg),
		samples: envOr("OPERANDS_SAMPLES", "../../hack/operands/samples"),
		bin:     envOr("OPERANDS_BIN", "../../_output/operands/bin"),
		http:    &http.Client{Timeout: 30 * time.Second},
	}
	fw.scc, err = live.ServesSCC(fw.kube)
	Expect(err).NotTo(HaveOccurred())
	if os.Getenv("OPENSHIFT") == "true" {
		Expect(fw.scc).To(BeTrue(), "OPENSHIFT=true, but the cluster does not serve SecurityContextConstraints")
	}
	fw.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	path := os.Getenv("OPERANDS_SERVICES_ENV")
	Expect(path).NotTo(BeEmpty(), "OPERANDS_SERVICES_ENV must name the backing services' env file (hack/operands/services.sh)")
	fw.services, err = readEnvFile(path)
	Expect(err).NotTo(HaveOccurred())
})

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// readEnvFile reads KEY=VALUE lines.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && k != "" && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out, sc.Err()
}

var placeholder = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*)\}`)

// render fills a sample's ${VAR}s from the services' env and vars; an unknown one is an error
// (hack/operands/samples.sh does the same for make run-local).
func render(file string, vars map[string]string) ([]*unstructured.Unstructured, error) {
	text, err := os.ReadFile(filepath.Join(fw.samples, file))
	if err != nil {
		return nil, err
	}
	var missing []string
	out := placeholder.ReplaceAllFunc(text, func(m []byte) []byte {
		name := string(placeholder.FindSubmatch(m)[1])
		if v, ok := vars[name]; ok {
			return []byte(v)
		}
		if v, ok := fw.services[name]; ok {
			return []byte(v)
		}
		missing = append(missing, name)
		return m
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: no value for %v", file, missing)
	}
	return decodeAll(out)
}

func decodeAll(text []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(text), 4096)
	var objs []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, err
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
}

// resource is the dynamic client of an object's kind in namespace ns.
func resource(obj *unstructured.Unstructured, ns string) dynamic.ResourceInterface {
	gvk := obj.GroupVersionKind()
	m, err := fw.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	Expect(err).NotTo(HaveOccurred(), "kind %s", gvk)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return fw.dyn.Resource(m.Resource).Namespace(ns)
	}
	return fw.dyn.Resource(m.Resource)
}

// apply server-side applies every object into ns.
func apply(ctx context.Context, ns string, objs ...*unstructured.Unstructured) {
	for _, obj := range objs {
		obj.SetNamespace(ns)
		if obj.GetKind() == "PersistentVolume" {
			obj.SetNamespace("")
		}
		data, err := json.Marshal(obj.Object)
		Expect(err).NotTo(HaveOccurred())
		_, err = resource(obj, ns).Patch(ctx, obj.GetName(), types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: fieldManager, Force: ptr(true)})
		Expect(err).NotTo(HaveOccurred(), "apply %s %s/%s", obj.GetKind(), ns, obj.GetName())
	}
}

func ptr[T any](v T) *T { return &v }

// namespace creates a fresh namespace for a spec and deletes it (and what runs there) after it.
func namespace(ctx context.Context, name string) string {
	_, err := fw.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	DeferCleanup(func(ctx SpecContext) {
		if CurrentSpecReport().Failed() {
			dumpNamespace(ctx, name)
		}
		defer func() { _ = fw.kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}) }()
		if fw.scc {
			By("checking that SCC admission admitted every pod of " + name + " under restricted-v2, as a user of the namespace's range")
			problems, err := live.SCCProblems(ctx, fw.kube, "restricted-v2", name)
			Expect(err).NotTo(HaveOccurred())
			Expect(problems).To(BeEmpty())
		}
	})
	return name
}

// byKind finds the object of a kind (and name, when not empty) among objs.
func byKind(objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && (name == "" || o.GetName() == name) {
			return o
		}
	}
	Fail(fmt.Sprintf("no %s %s in the sample", kind, name))
	return nil
}

// condition is the CR's condition of type typ as it is now (failing g when it has none).
func condition(g Gomega, ctx context.Context, obj *unstructured.Unstructured, ns, typ string) map[string]any {
	live, err := resource(obj, ns).Get(ctx, obj.GetName(), metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			return m
		}
	}
	g.Expect(conds).To(ContainElement(HaveKeyWithValue("type", typ)))
	return nil
}

// waitCondition polls the CR until condition typ is True.
func waitCondition(ctx context.Context, obj *unstructured.Unstructured, ns, typ string) {
	By(fmt.Sprintf("waiting for %s %s/%s %s=True", obj.GetKind(), ns, obj.GetName(), typ))
	Eventually(func(g Gomega) {
		live, err := resource(obj, ns).Get(ctx, obj.GetName(), metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == typ {
				g.Expect(m["status"]).To(Equal("True"), "%s: %v", typ, m["message"])
				return
			}
		}
		g.Expect(conds).To(ContainElement(HaveKeyWithValue("type", typ)))
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}

// serviceURL is how this machine reaches a Service of the cluster: its cluster IP, a loopback
// address the real-pod agent serves.
func serviceURL(ctx context.Context, ns, name string, port int, scheme string) string {
	svc, err := fw.kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return fmt.Sprintf("%s://%s:%d", scheme, svc.Spec.ClusterIP, port)
}

// podsRunningFor: the pods of a Deployment, waited for until each is Ready.
func waitDeploymentReady(ctx context.Context, ns, name string) {
	By("waiting for Deployment " + ns + "/" + name + " to be ready")
	Eventually(func(g Gomega) {
		d, err := fw.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.Status.ReadyReplicas).To(BeNumerically(">=", 1))
		g.Expect(d.Status.UpdatedReplicas).To(Equal(d.Status.Replicas))
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}

// do sends one request and returns the status and body.
func do(ctx context.Context, method, url string, header http.Header, body io.Reader) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := fw.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

// dumpNamespace writes what a failed spec's namespace holds: pods with their status, events.
func dumpNamespace(ctx context.Context, ns string) {
	pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, p := range pods.Items {
			GinkgoWriter.Printf("pod %s/%s phase=%s\n", ns, p.Name, p.Status.Phase)
			for _, cs := range p.Status.ContainerStatuses {
				GinkgoWriter.Printf("  %s ready=%v restarts=%d state=%+v last=%+v\n", cs.Name, cs.Ready, cs.RestartCount, cs.State, cs.LastTerminationState)
			}
		}
	}
	events, err := fw.kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, e := range events.Items {
			GinkgoWriter.Printf("event %s %s/%s %s: %s\n", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
}

type hostProcess struct {
	pid, uid int
	cmdline  string
}

// kubernetesServiceHost is this cluster's kubernetes Service address, which the real-pod agent
// gives every container as KUBERNETES_SERVICE_HOST: another local cluster on the machine (each
// has its own Service range) may run pods of the same names, such as make run-local's sim-0.
var kubernetesServiceHost = sync.OnceValue(func() string {
	svc, err := fw.kube.CoreV1().Services("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	return svc.Spec.ClusterIP
})

// podProcesses are the processes on this machine that run a real pod's containers: the real-pod
// agent gives each the pod's name as HOSTNAME (as a kubelet does), which their children inherit,
// and this cluster's KUBERNETES_SERVICE_HOST. The suite runs on the machine that runs the pods
// (hack/test-operands-local.sh).
func podProcesses(pod string) []hostProcess {
	entries, err := os.ReadDir("/proc")
	Expect(err).NotTo(HaveOccurred())
	want := []byte("\x00HOSTNAME=" + pod + "\x00")
	cluster := []byte("\x00KUBERNETES_SERVICE_HOST=" + kubernetesServiceHost() + "\x00")
	var out []hostProcess
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		env = append([]byte{0}, env...)
		if err != nil || !bytes.Contains(env, want) || !bytes.Contains(env, cluster) {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		p := hostProcess{pid: pid, uid: -1}
		if m := regexp.MustCompile(`(?m)^Uid:\s+(\d+)`).FindSubmatch(status); m != nil {
			_, _ = fmt.Sscan(string(m[1]), &p.uid)
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		p.cmdline = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		out = append(out, p)
	}
	return out
}

// expectWritableOnlyAtVolumes: every container of the operator's pods in ns (those labelled
// app.kubernetes.io/part-of) asks for a read-only root filesystem, and every process of those
// pods on this machine has one (issue 33): in its mount namespace the root is mounted read-only
// and every writable mount is one of the pod's volumes, /proc, the pod's private /dev/shm, or a
// file the kubelet itself mounts writable (/etc/hosts, /etc/resolv.conf, /etc/hostname, as
// Kubernetes does). So a spec that passes proves the program works writing nothing but its
// volumes: the real-pod agent applies readOnlyRootFilesystem, and a write elsewhere fails with
// EROFS (or EACCES). Returns, by pod checked, the writable volume mounts its processes have
// (none: an empty list).
func expectWritableOnlyAtVolumes(ctx context.Context, ns string) map[string][]string {
	pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/part-of"})
	Expect(err).NotTo(HaveOccurred())
	seen := map[string][]string{}
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning {
			continue
		}
		allowed := map[string]bool{"/dev/shm": true, "/etc/hosts": true, "/etc/resolv.conf": true, "/etc/hostname": true}
		for _, c := range pod.Spec.Containers {
			Expect(c.SecurityContext).NotTo(BeNil(), "pod %s container %s", pod.Name, c.Name)
			Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()), "pod %s container %s: readOnlyRootFilesystem", pod.Name, c.Name)
			for _, m := range c.VolumeMounts {
				allowed[m.MountPath] = true
			}
		}
		procs := podProcesses(pod.Name)
		Expect(procs).NotTo(BeEmpty(), "no process of pod %s on this machine", pod.Name)
		seen[pod.Name] = []string{}
		for _, p := range procs {
			rootRO, writable, err := mountsOf(p.pid)
			if errors.Is(err, os.ErrNotExist) {
				continue // the process ended meanwhile
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(rootRO).To(BeTrue(), "process %d (%s) of pod %s: its root is writable", p.pid, p.cmdline, pod.Name)
			for _, m := range writable {
				if m == "/proc" || strings.HasPrefix(m, "/proc/") {
					continue
				}
				Expect(allowed).To(HaveKey(m), "process %d (%s) of pod %s may write at %s, which is none of its volumes", p.pid, p.cmdline, pod.Name, m)
				if m != "/dev/shm" && !strings.HasPrefix(m, "/etc/") && !slices.Contains(seen[pod.Name], m) {
					seen[pod.Name] = append(seen[pod.Name], m)
				}
			}
		}
	}
	for pod, ms := range seen {
		GinkgoWriter.Printf("pod %s: root read-only, writable volumes %v\n", pod, ms)
	}
	return seen
}

// mountsOf reads /proc/<pid>/mountinfo: whether the process's root is mounted read-only (the
// last mount on "/", the one it sees) and the mount points of its writable mounts (mount points
// are relative to the process's root).
func mountsOf(pid int) (rootRO bool, writable []string, err error) {
	data, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "mountinfo"))
	if err != nil {
		return false, nil, err
	}
	unescape := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	rootSeen := false
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			return false, nil, fmt.Errorf("mountinfo of %d: %q", pid, line)
		}
		point, options := unescape.Replace(f[4]), strings.Split(f[5], ",")
		ro := slices.Contains(options, "ro")
		if point == "/" {
			rootRO, rootSeen = ro, true
		}
		if !ro && !slices.Contains(writable, point) {
			writable = append(writable, point)
		}
	}
	if !rootSeen {
		return false, nil, fmt.Errorf("mountinfo of %d has no root", pid)
	}
	return rootRO, writable, nil
}

// dirSize is the bytes of the regular files under dir (as the kubelet counts an emptyDir
// against its sizeLimit, roughly).
func dirSize(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}
