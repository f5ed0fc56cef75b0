//go:build live

// The live test of real pods: run by `make test-realpods` (hack/test-realpods.sh) against a
// local cluster started with REAL_PODS=true, whose image table maps the image
// realpods.test/echo to realpods-echo. Nothing here is simulated: the pods are processes.
package test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const image = "realpods.test/echo:v1"

var (
	client   kubernetes.Interface
	ns       string
	stateDir = os.Getenv("REALPODS_STATE_DIR")
	nodeIP   = os.Getenv("REALPODS_NODE_IP")
)

func TestMain(m *testing.M) {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	client = kubernetes.NewForConfigOrDie(cfg)
	if stateDir == "" || nodeIP == "" {
		fmt.Fprintln(os.Stderr, "REALPODS_STATE_DIR and REALPODS_NODE_IP must be set (make test-realpods sets them)")
		os.Exit(1)
	}
	ns = fmt.Sprintf("realpods-live-%d", time.Now().Unix())
	ctx := context.Background()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	os.Exit(code)
}

// poll calls f every 200ms until it returns nil or timeout passes; then fails with f's error.
func poll(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func i64(v int64) *int64 { return &v }
func bptr(v bool) *bool  { return &v }

// echoDeployment runs `realpods-echo serve` as user 65532 with a read-only root, reading a
// ConfigMap and a Secret, writing to an emptyDir and a PVC; ready only when /ready answers.
func echoDeployment(name string, readyAtStart bool, extra ...string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	args := append([]string{"serve", "--listen=:8080", "--config=/config/config.txt", "--child"}, extra...)
	if readyAtStart {
		args = append(args, "--ready")
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: i64(3),
					SecurityContext:               &corev1.PodSecurityContext{RunAsUser: i64(65532), RunAsGroup: i64(65532), FSGroup: i64(2000)},
					Containers: []corev1.Container{{
						Name: "echo", Image: image, Command: []string{"/echo"}, Args: args,
						Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
						Env: []corev1.EnvVar{
							{Name: "SECRET_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "echo-secret"}, Key: "token"}}},
							{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
							{Name: "GREETING", Value: "hello from $(POD_IP)"},
						},
						VolumeMounts: []corev1.VolumeMount{
							{Name: "config", MountPath: "/config"},
							{Name: "scratch", MountPath: "/data"},
							{Name: "store", MountPath: "/var/lib/store"},
						},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("http")}}, PeriodSeconds: 1, FailureThreshold: 1},
						LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 2},
						SecurityContext: &corev1.SecurityContext{
							ReadOnlyRootFilesystem: bptr(true), AllowPrivilegeEscalation: bptr(false),
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
					Volumes: []corev1.Volume{
						{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "echo-config"}}}},
						{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "store", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name + "-store"}}},
					},
				},
			},
		},
	}
}

func service(name string, typ corev1.ServiceType) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Type: typ, Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}},
	}
}

// claim is a PVC bound to a hostPath PV of its own (the directory does not exist yet: the agent
// makes it root-owned, as a fresh block volume).
func claim(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	pvName := ns + "-" + name
	dir := filepath.Join(stateDir, "live-pv", pvName)
	_, err := client.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              "realpods-live",
			ClaimRef:                      &corev1.ObjectReference{Namespace: ns, Name: name},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = client.CoreV1().PersistentVolumes().Delete(context.Background(), pvName, metav1.DeleteOptions{})
	})
	sc := "realpods-live"
	_, err = client.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: &sc, VolumeName: pvName,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

func podOf(ctx context.Context, app string) (*corev1.Pod, error) {
	l, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return nil, err
	}
	for i := range l.Items {
		if l.Items[i].DeletionTimestamp == nil {
			return &l.Items[i], nil
		}
	}
	return nil, fmt.Errorf("no pod of %s yet", app)
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func available(ctx context.Context, name string) (bool, error) {
	d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue, nil
		}
	}
	return false, nil
}

// get fetches a URL from the host and decodes its JSON.
func get(u string, out any) error {
	c := &http.Client{Timeout: 15 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %d %s", u, resp.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

type info struct {
	UID      int               `json:"uid"`
	GID      int               `json:"gid"`
	Groups   []int             `json:"groups"`
	Hostname string            `json:"hostname"`
	Env      map[string]string `json:"env"`
	Config   string            `json:"config"`
	PID      int               `json:"pid"`
}

type result struct {
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Millis int64  `json:"millis"`
	Status int    `json:"status"`
	Body   string `json:"body"`
}

func TestRealPods(t *testing.T) {
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "echo-config"}, Data: map[string]string{"config.txt": "mode: live\n"}}, metav1.CreateOptions{})
	must(err)
	_, err = client.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "echo-secret"}, StringData: map[string]string{"token": "s3cret-value"}}, metav1.CreateOptions{})
	must(err)
	claim(t, ctx, "echo-store")
	claim(t, ctx, "client-store")
	_, err = client.AppsV1().Deployments(ns).Create(ctx, echoDeployment("echo", false), metav1.CreateOptions{})
	must(err)
	_, err = client.AppsV1().Deployments(ns).Create(ctx, echoDeployment("client", true), metav1.CreateOptions{})
	must(err)
	echoSvc, err := client.CoreV1().Services(ns).Create(ctx, service("echo", corev1.ServiceTypeNodePort), metav1.CreateOptions{})
	must(err)
	clientSvc, err := client.CoreV1().Services(ns).Create(ctx, service("client", corev1.ServiceTypeClusterIP), metav1.CreateOptions{})
	must(err)
	clientURL := "http://" + net.JoinHostPort(clientSvc.Spec.ClusterIP, "80")

	// Both pods listen on 8080, each in its own network namespace. The client is ready at once.
	poll(t, 90*time.Second, "the client Deployment to be Available", func() error {
		if ok, err := available(ctx, "client"); err != nil || !ok {
			return fmt.Errorf("not available (%v)", err)
		}
		return nil
	})

	// The echo pod runs, and its process answers, but /ready says 503: not Ready, the Deployment
	// not Available, and the Service has no endpoint.
	var echoPod *corev1.Pod
	poll(t, 60*time.Second, "the echo pod's container to run", func() error {
		p, err := podOf(ctx, "echo")
		if err != nil {
			return err
		}
		if len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Running == nil || p.Status.PodIP == "" {
			return fmt.Errorf("phase %s", p.Status.Phase)
		}
		echoPod = p
		return nil
	})
	var fetched result
	poll(t, 20*time.Second, "the client pod to reach the echo pod by its IP", func() error {
		err := get(clientURL+"/fetch?url="+url.QueryEscape("http://"+echoPod.Status.PodIP+":8080/ready"), &fetched)
		if err == nil && fetched.Status != http.StatusServiceUnavailable {
			return fmt.Errorf("echo's /ready answered %d %q", fetched.Status, fetched.Error)
		}
		return err
	})
	// The probe runs every second with failureThreshold 1: after 3 periods of 503 the pod must
	// still be unready.
	time.Sleep(3 * time.Second) // a negative check: nothing to poll for
	p, err := client.CoreV1().Pods(ns).Get(ctx, echoPod.Name, metav1.GetOptions{})
	must(err)
	if ready(p) {
		t.Fatal("the echo pod is Ready while its readiness probe answers 503")
	}
	if ok, _ := available(ctx, "echo"); ok {
		t.Fatal("the echo Deployment is Available while its pod's probe fails")
	}
	// Make it ready, from the client pod (pod to pod by IP).
	must(get(clientURL+"/fetch?method=POST&url="+url.QueryEscape("http://"+echoPod.Status.PodIP+":8080/control/ready"), &fetched))
	if fetched.Status != http.StatusOK {
		t.Fatalf("POST /control/ready through the client pod: %+v", fetched)
	}
	poll(t, 30*time.Second, "the echo Deployment to be Available once /ready answers 200", func() error {
		if ok, err := available(ctx, "echo"); err != nil || !ok {
			return fmt.Errorf("not available (%v)", err)
		}
		return nil
	})

	// From the host: the Service by ClusterIP and by NodePort on the node address.
	var in info
	echoURL := "http://" + net.JoinHostPort(echoSvc.Spec.ClusterIP, "80")
	poll(t, 20*time.Second, "the echo Service from the host", func() error { return get(echoURL+"/info", &in) })
	t.Run("identity, env, config", func(t *testing.T) {
		if in.UID != 65532 || in.GID != 65532 {
			t.Errorf("runs as %d:%d, want 65532:65532", in.UID, in.GID)
		}
		if !contains(in.Groups, 2000) {
			t.Errorf("groups %v lack fsGroup 2000", in.Groups)
		}
		if in.PID != 1 {
			t.Errorf("pid %d, want 1 (its own PID namespace)", in.PID)
		}
		if in.Env["SECRET_TOKEN"] != "s3cret-value" {
			t.Errorf("SECRET_TOKEN = %q", in.Env["SECRET_TOKEN"])
		}
		if want := "hello from " + echoPod.Status.PodIP; in.Env["GREETING"] != want {
			t.Errorf("GREETING = %q, want %q ($(VAR) expansion)", in.Env["GREETING"], want)
		}
		if in.Env["ECHO_IMAGE"] != "1" {
			t.Errorf("the image table's env default ECHO_IMAGE is %q", in.Env["ECHO_IMAGE"])
		}
		if in.Env["KUBERNETES_SERVICE_HOST"] == "" || in.Env["ECHO_SERVICE_HOST"] != echoSvc.Spec.ClusterIP {
			t.Errorf("service link variables: KUBERNETES_SERVICE_HOST=%q ECHO_SERVICE_HOST=%q", in.Env["KUBERNETES_SERVICE_HOST"], in.Env["ECHO_SERVICE_HOST"])
		}
		if in.Config != "mode: live\n" {
			t.Errorf("config file %q", in.Config)
		}
		if in.Hostname != echoPod.Name {
			t.Errorf("hostname %q, want the pod's name %q", in.Hostname, echoPod.Name)
		}
	})
	t.Run("nodePort from the host", func(t *testing.T) {
		var viaNodePort info
		u := "http://" + net.JoinHostPort(nodeIP, strconv.Itoa(int(echoSvc.Spec.Ports[0].NodePort))) + "/info"
		poll(t, 20*time.Second, "the NodePort "+u, func() error { return get(u, &viaNodePort) })
		if viaNodePort.Hostname != echoPod.Name {
			t.Errorf("NodePort reached %q", viaNodePort.Hostname)
		}
	})
	t.Run("read-only root, writable volumes, fsGroup on the PVC", func(t *testing.T) {
		for path, wantOK := range map[string]bool{
			"/x": false, "/tmp/x": false, "/etc/x": false, "/config/x": false,
			"/data/x": true, "/var/lib/store/x": true,
		} {
			var r result
			if err := get(echoURL+"/write?path="+url.QueryEscape(path), &r); err != nil {
				t.Fatal(err)
			}
			if r.OK != wantOK {
				t.Errorf("write %s: ok=%v (%s), want %v", path, r.OK, r.Error, wantOK)
			}
		}
	})
	t.Run("Service by DNS name from another pod", func(t *testing.T) {
		for _, host := range []string{"echo", "echo." + ns, "echo." + ns + ".svc", "echo." + ns + ".svc.cluster.local"} {
			var r result
			if err := get(clientURL+"/fetch?url="+url.QueryEscape("http://"+host+"/info"), &r); err != nil {
				t.Fatal(err)
			}
			if r.Status != http.StatusOK || !strings.Contains(r.Body, `"hostname":"`+echoPod.Name+`"`) {
				t.Errorf("http://%s/info from the client pod: %d %s %s", host, r.Status, r.Error, r.Body)
			}
		}
		var r result
		if err := get(clientURL+"/fetch?url="+url.QueryEscape("http://kubernetes.default.svc:443/healthz"), &r); err != nil {
			t.Fatal(err)
		}
		// The API server speaks TLS behind the Service's port 443: a plain request gets a 400 from
		// it, which proves the route from a pod to the API server on the host.
		if r.Status != http.StatusBadRequest {
			t.Errorf("the kubernetes Service (API server, TLS) from a pod over plain HTTP: %d %s, want 400", r.Status, r.Error)
		}
	})
	t.Run("nothing leaves loopback", func(t *testing.T) {
		for _, addr := range []string{"1.1.1.1:443", "192.0.2.1:80", "[2606:4700::1111]:443"} {
			var r result
			if err := get(echoURL+"/dial?addr="+url.QueryEscape(addr), &r); err != nil {
				t.Fatal(err)
			}
			if r.OK || !strings.Contains(r.Error, "network is unreachable") || r.Millis > 1000 {
				t.Errorf("connect to %s from a pod: ok=%v %q after %dms, want 'network is unreachable' at once", addr, r.OK, r.Error, r.Millis)
			}
		}
	})
	t.Run("kubectl logs through the kubelet API", func(t *testing.T) {
		var logs []byte
		poll(t, 20*time.Second, "the echo container's log", func() error {
			var err error
			logs, err = client.CoreV1().Pods(ns).GetLogs(echoPod.Name, &corev1.PodLogOptions{Container: "echo"}).DoRaw(ctx)
			if err == nil && !strings.Contains(string(logs), "listening on :8080") {
				return fmt.Errorf("log is %q", logs)
			}
			return err
		})
	})
	t.Run("deleting the pod kills its processes", func(t *testing.T) {
		pidFile := filepath.Join(stateDir, "pods", string(echoPod.UID), "containers", "echo", "pid")
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.Fields(string(b))[0])
		children := childrenOf(pid)
		if len(children) == 0 {
			t.Fatalf("the echo process %d has no child (it starts one)", pid)
		}
		procs := append([]int{pid}, children...)
		must(client.CoreV1().Pods(ns).Delete(ctx, echoPod.Name, metav1.DeleteOptions{}))
		poll(t, 30*time.Second, "the pod to be gone from the API", func() error {
			_, err := client.CoreV1().Pods(ns).Get(ctx, echoPod.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (%v)", err)
		})
		for _, p := range procs {
			if _, err := os.Stat("/proc/" + strconv.Itoa(p)); err == nil {
				t.Errorf("process %d of the deleted pod still runs", p)
			}
		}
		if _, err := os.Stat(filepath.Dir(filepath.Dir(filepath.Dir(pidFile)))); !os.IsNotExist(err) {
			t.Errorf("the pod's state directory is still there: %v", err)
		}
	})
}

func TestCrashLoop(t *testing.T) {
	ctx := context.Background()
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "crasher"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "crasher"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "crasher"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "crash", Image: image, Args: []string{"crash", "--code=3"},
				}}},
			},
		},
	}
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, 60*time.Second, "restartCount >= 1 and CrashLoopBackOff with the last exit code 3", func() error {
		p, err := podOf(ctx, "crasher")
		if err != nil {
			return err
		}
		if len(p.Status.ContainerStatuses) == 0 {
			return fmt.Errorf("no container status")
		}
		cs := p.Status.ContainerStatuses[0]
		if cs.RestartCount < 1 || cs.State.Waiting == nil || cs.State.Waiting.Reason != "CrashLoopBackOff" ||
			cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 3 {
			return fmt.Errorf("status %+v", cs)
		}
		if ready(p) {
			return fmt.Errorf("a crash-looping pod is Ready")
		}
		return nil
	})
	var logs []byte
	poll(t, 20*time.Second, "the crashed container's log", func() error {
		p, err := podOf(ctx, "crasher")
		if err != nil {
			return err
		}
		logs, err = client.CoreV1().Pods(ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: "crash", Previous: true}).DoRaw(ctx)
		if err == nil && !strings.Contains(string(logs), "crashing with 3") {
			return fmt.Errorf("previous log %q", logs)
		}
		return err
	})
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndex(s, ")")+2:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestProgramHiddenFromTheContainer: the image table may name a host binary the container cannot
// see, as when the clone lives under the host's /tmp (the container's /tmp is its own) in a
// directory only root may enter. The agent binds the binary into the container and runs it from
// there: the pod runs as user 65532 and is Ready, and the host path does not exist inside it.
func TestProgramHiddenFromTheContainer(t *testing.T) {
	hidden := os.Getenv("REALPODS_HIDDEN_PROGRAM")
	if hidden == "" {
		t.Fatal("REALPODS_HIDDEN_PROGRAM must name the host binary of the image realpods.test/echo-hidden (make test-realpods sets it)")
	}
	ctx := context.Background()
	labels := map[string]string{"app": "hidden"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "hidden"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: i64(3),
					SecurityContext:               &corev1.PodSecurityContext{RunAsUser: i64(65532), RunAsGroup: i64(65532)},
					Containers: []corev1.Container{{
						Name: "echo", Image: "realpods.test/echo-hidden:v1",
						Args:           []string{"serve", "--listen=:8080", "--ready"},
						Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("http")}}, PeriodSeconds: 1},
						SecurityContext: &corev1.SecurityContext{
							ReadOnlyRootFilesystem: bptr(true), AllowPrivilegeEscalation: bptr(false),
							Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
						},
					}},
				},
			},
		},
	}
	if _, err := client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := client.CoreV1().Services(ns).Create(ctx, service("hidden", corev1.ServiceTypeClusterIP), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	poll(t, 90*time.Second, "the pod of the hidden program to be Ready, never restarted", func() error {
		p, err := podOf(ctx, "hidden")
		if err != nil {
			return err
		}
		if len(p.Status.ContainerStatuses) == 0 {
			return fmt.Errorf("no container status")
		}
		cs := p.Status.ContainerStatuses[0]
		if cs.RestartCount != 0 || cs.LastTerminationState.Terminated != nil {
			t.Fatalf("the container exited: %+v", cs)
		}
		if !ready(p) {
			return fmt.Errorf("not ready: %+v", cs.State)
		}
		return nil
	})
	base := "http://" + net.JoinHostPort(svc.Spec.ClusterIP, "80")
	var who info
	poll(t, 20*time.Second, "the hidden program to answer through its Service", func() error { return get(base+"/info", &who) })
	if who.UID != 65532 {
		t.Errorf("the program runs as uid %d, want 65532", who.UID)
	}
	var st result
	poll(t, 20*time.Second, "the program to stat its host path", func() error { return get(base+"/stat?path="+url.QueryEscape(hidden), &st) })
	if st.OK {
		t.Errorf("the host path %s is visible inside the container: the test proves nothing", hidden)
	}
}
