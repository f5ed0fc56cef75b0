package runtime

import (
	"net"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/imagetable"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/podenv"
)

func TestResolvConfAndHosts(t *testing.T) {
	ndots := "2"
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "team"},
		Spec: corev1.PodSpec{Hostname: "web-0", Subdomain: "web", HostAliases: []corev1.HostAlias{{IP: "127.0.0.5", Hostnames: []string{"db", "db.local"}}},
			DNSConfig: &corev1.PodDNSConfig{Searches: []string{"extra.local"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: &ndots}}}}}
	want := "search team.svc.cluster.local svc.cluster.local cluster.local extra.local\nnameserver 127.16.0.1\noptions ndots:5 ndots:2\n"
	if got := ResolvConf(pod, "127.16.0.1", "cluster.local"); got != want {
		t.Errorf("resolv.conf:\n%s\nwant\n%s", got, want)
	}
	hosts := HostsFile(pod, "127.16.0.10", "cluster.local")
	for _, line := range []string{"127.0.0.1\tlocalhost", "127.16.0.10\tweb-0.web.team.svc.cluster.local\tweb-0", "127.0.0.5\tdb\tdb.local"} {
		if !strings.Contains(hosts, line+"\n") {
			t.Errorf("hosts lacks %q:\n%s", line, hosts)
		}
	}
	long := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("a", 70)}}
	if h := Hostname(long); len(h) != 63 {
		t.Errorf("hostname of a long pod name has %d characters", len(h))
	}
}

func i64(v int64) *int64 { return &v }

func TestIdentity(t *testing.T) {
	yes := true
	pod := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{
		RunAsUser: i64(1000), RunAsGroup: i64(1000), FSGroup: i64(2000), SupplementalGroups: []int64{3000},
	}}}
	got, err := identity(pod, &corev1.Container{SecurityContext: &corev1.SecurityContext{RunAsUser: i64(65532)}}, imagetable.Image{User: i64(1001)})
	if err != nil {
		t.Fatal(err)
	}
	if got.uid != 65532 || got.gid != 1000 || len(got.groups) != 2 || got.groups[0] != 2000 || got.groups[1] != 3000 {
		t.Errorf("identity = %+v, want uid 65532 (container), gid 1000 (pod), groups [2000 3000]", got)
	}
	root, err := identity(&corev1.Pod{}, &corev1.Container{}, imagetable.Image{})
	if err != nil || root.uid != 0 || root.gid != 0 {
		t.Errorf("no security context: %+v, %v (want root, as the image's default user)", root, err)
	}
	nonRoot := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &yes, FSGroup: i64(65532)}}}
	_, err = identity(nonRoot, &corev1.Container{}, imagetable.Image{})
	if !podenv.IsConfigError(err) {
		t.Errorf("runAsNonRoot without a user: %v, want a config error", err)
	}
	// No runAsUser: the image's USER from the table, and its group.
	img, err := identity(nonRoot, &corev1.Container{}, imagetable.Image{User: i64(1001), Group: i64(1002)})
	if err != nil || img.uid != 1001 || img.gid != 1002 || len(img.groups) != 1 || img.groups[0] != 65532 {
		t.Errorf("image user: %+v, %v, want uid 1001, gid 1002, groups [65532]", img, err)
	}
	// A pod's runAsGroup wins over the image's group.
	withGroup := &corev1.Pod{Spec: corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsGroup: i64(7)}}}
	if g, err := identity(withGroup, &corev1.Container{}, imagetable.Image{User: i64(1001), Group: i64(1002)}); err != nil || g.uid != 1001 || g.gid != 7 {
		t.Errorf("image user with the pod's runAsGroup: %+v, %v, want uid 1001, gid 7", g, err)
	}
}

func TestEnviron(t *testing.T) {
	env := environ([]podenv.Var{{Name: "A", Value: "1"}, {Name: "HOME", Value: "/data"}}, 65532, "web-0")
	joined := strings.Join(env, " ")
	for _, want := range []string{"PATH=/usr/local/sbin", "A=1", "HOME=/data", "HOSTNAME=web-0"} {
		if !strings.Contains(joined, want) {
			t.Errorf("environ lacks %q: %v", want, env)
		}
	}
	if strings.Count(joined, "HOME=") != 1 {
		t.Errorf("HOME twice: %v", env)
	}
}

func TestIPAM(t *testing.T) {
	_, n, _ := net.ParseCIDR("127.16.0.0/28") // 16 addresses: .10 to .14 usable
	a := NewIPAM(n)
	var got []string
	for i := 0; i < 5; i++ {
		ip, err := a.Allocate()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ip.String())
	}
	if strings.Join(got, " ") != "127.16.0.10 127.16.0.11 127.16.0.12 127.16.0.13 127.16.0.14" {
		t.Errorf("allocated %v", got)
	}
	if _, err := a.Allocate(); err == nil {
		t.Error("an exhausted range allocated")
	}
	a.Release(net.ParseIP("127.16.0.12"))
	if ip, err := a.Allocate(); err != nil || ip.String() != "127.16.0.12" {
		t.Errorf("after a release: %v, %v", ip, err)
	}
}

// TestStatus builds a pod's status from container states without running anything.
func TestStatus(t *testing.T) {
	tb, _ := imagetable.Parse(strings.NewReader(""))
	rt := New(Config{NodeIP: "127.16.0.1", Table: tb})
	spec := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "u"},
		Spec:   corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}},
		Status: corev1.PodStatus{QOSClass: corev1.PodQOSBestEffort, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}}}
	p := newPod(rt, spec)
	p.ip = net.ParseIP("127.16.0.10")
	st := p.status()
	if st.Phase != corev1.PodPending || conditionOf(st, corev1.PodReady) != corev1.ConditionFalse {
		t.Errorf("before the sandbox: phase %s ready %s", st.Phase, conditionOf(st, corev1.PodReady))
	}
	p.sandboxUp, p.initsDone = true, true
	now := metav1.Now()
	a, b := p.containers[0], p.containers[1]
	a.state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
	a.ready = true
	b.state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	b.last = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}}
	b.restartCount = 2
	st = p.status()
	if st.Phase != corev1.PodRunning || conditionOf(st, corev1.PodReady) != corev1.ConditionFalse || conditionOf(st, corev1.PodScheduled) != corev1.ConditionTrue {
		t.Errorf("one crash-looping container: phase %s ready %s scheduled %s", st.Phase, conditionOf(st, corev1.PodReady), conditionOf(st, corev1.PodScheduled))
	}
	if cs := st.ContainerStatuses[1]; cs.RestartCount != 2 || cs.State.Waiting.Reason != "CrashLoopBackOff" || cs.LastTerminationState.Terminated.ExitCode != 3 {
		t.Errorf("crash-looping container status %+v", cs)
	}
	if st.PodIP != "127.16.0.10" || st.HostIP != "127.16.0.1" || st.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("addresses/QOS: %s %s %s", st.PodIP, st.HostIP, st.QOSClass)
	}
	b.state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
	b.ready = true
	if st = p.status(); conditionOf(st, corev1.PodReady) != corev1.ConditionTrue || conditionOf(st, corev1.ContainersReady) != corev1.ConditionTrue {
		t.Errorf("all ready: %v", st.Conditions)
	}
	// restartPolicy Never: both exit, one failed -> Failed.
	p.pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	a.state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}
	b.state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1}}
	if st = p.status(); st.Phase != corev1.PodFailed {
		t.Errorf("Never with a failure: phase %s", st.Phase)
	}
	b.state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}
	if st = p.status(); st.Phase != corev1.PodSucceeded {
		t.Errorf("Never, all succeeded: phase %s", st.Phase)
	}
}

func conditionOf(st corev1.PodStatus, t corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range st.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}
