package runtime

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/netx"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/podenv"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/volumes"
)

// Pod is one pod of the runtime.
type Pod struct {
	rt      *Runtime
	uid     types.UID
	key     types.NamespacedName
	created time.Time
	real    bool

	ctx    context.Context // ends when the pod is to stop
	cancel context.CancelFunc
	done   chan struct{} // closed when every process is gone and the sandbox torn down

	mu          sync.Mutex
	pod         *corev1.Pod // the latest object from the API
	ip          net.IP
	startTime   metav1.Time
	sandboxUp   bool
	sandboxMsg  string
	netns       netx.NS
	veth        string
	volumes     *volumes.Set
	volumePaths map[string]string
	inits       []*Container
	containers  []*Container
	initsDone   bool
	failed      bool // an init container failed under restartPolicy Never
	terminating bool
}

func newPod(r *Runtime, pod *corev1.Pod) *Pod {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pod{
		rt: r, uid: pod.UID, key: types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name},
		created: time.Now(), real: r.Real(pod), ctx: ctx, cancel: cancel, done: make(chan struct{}),
		pod: pod.DeepCopy(), startTime: metav1.Now(),
	}
	for i := range pod.Spec.InitContainers {
		p.inits = append(p.inits, newContainer(p, &pod.Spec.InitContainers[i], true))
	}
	for i := range pod.Spec.Containers {
		p.containers = append(p.containers, newContainer(p, &pod.Spec.Containers[i], false))
	}
	return p
}

func (p *Pod) logf(format string, args ...any) {
	p.rt.cfg.Log.Printf("pod %s/%s: %s", p.key.Namespace, p.key.Name, fmt.Sprintf(format, args...))
}

// update takes a newer object of the pod from the API (labels, annotations, images of a
// simulated pod; a real pod's containers are what they were at creation).
func (p *Pod) update(pod *corev1.Pod) {
	p.mu.Lock()
	p.pod = pod.DeepCopy()
	p.mu.Unlock()
	p.changed()
}

// changed publishes the pod's status.
func (p *Pod) changed() {
	p.rt.publish(p.snapshot())
}

// snapshot is the pod object with the status as it is now.
func (p *Pod) snapshot() *corev1.Pod {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.pod.DeepCopy()
	out.Status = p.status()
	return out
}

// run is the pod's life.
func (p *Pod) run() {
	defer close(p.done)
	ip, err := p.rt.cfg.IPAM.Allocate()
	if err != nil {
		p.setSandboxMessage(err.Error())
		<-p.ctx.Done()
		return
	}
	p.mu.Lock()
	p.ip = ip
	p.mu.Unlock()
	defer p.rt.cfg.IPAM.Release(ip)
	if !p.real {
		p.mu.Lock()
		p.sandboxUp, p.initsDone = true, true
		now := metav1.Now()
		for _, c := range append(append([]*Container{}, p.inits...), p.containers...) {
			c.simulate(now)
		}
		p.mu.Unlock()
		p.changed()
		<-p.ctx.Done()
		p.mu.Lock()
		for _, c := range append(append([]*Container{}, p.inits...), p.containers...) {
			c.simulateStop()
		}
		p.mu.Unlock()
		return
	}
	defer p.teardown()
	for {
		err := p.setupSandbox()
		if err == nil {
			break
		}
		p.logf("sandbox: %v", err)
		p.setSandboxMessage(err.Error())
		select {
		case <-p.ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
	p.mu.Lock()
	p.sandboxUp, p.sandboxMsg = true, ""
	p.mu.Unlock()
	p.changed()
	go p.refreshVolumes()

	policy := p.pod.Spec.RestartPolicy
	// Init containers, one after the other; a sidecar (restartPolicy Always) keeps running and
	// the next one starts once it has started.
	for _, c := range p.inits {
		if c.sidecar() {
			go c.supervise(corev1.RestartPolicyAlways)
			if !c.waitStarted(p.ctx) {
				return
			}
			continue
		}
		if !c.runToCompletion(policy) {
			if p.ctx.Err() == nil {
				p.mu.Lock()
				p.failed = true
				p.mu.Unlock()
				p.changed()
				<-p.ctx.Done()
			}
			return
		}
	}
	p.mu.Lock()
	p.initsDone = true
	p.mu.Unlock()
	p.changed()
	var wg sync.WaitGroup
	for _, c := range p.containers {
		wg.Add(1)
		go func(c *Container) {
			defer wg.Done()
			c.supervise(policy)
		}(c)
	}
	wg.Wait()
	<-p.ctx.Done()
}

func (p *Pod) setSandboxMessage(msg string) {
	p.mu.Lock()
	p.sandboxMsg = msg
	p.mu.Unlock()
	p.changed()
}

// setupSandbox makes the pod's network namespace, its files and its volumes.
func (p *Pod) setupSandbox() error {
	cfg := p.rt.cfg
	dir := p.rt.podDir(p.uid)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p.mu.Lock()
	pod := p.pod.DeepCopy()
	ip := p.ip
	p.mu.Unlock()
	if p.veth == "" {
		ns, err := netx.NewNS()
		if err != nil {
			return err
		}
		veth := vethName(p.uid)
		if err := cfg.Hub.AddPod(ns, veth, ip); err != nil {
			ns.Close()
			_ = cfg.Hub.RemovePod(veth)
			return fmt.Errorf("pod network: %w", err)
		}
		p.netns, p.veth = ns, veth
	}
	files := map[string]string{
		"resolv.conf": ResolvConf(pod, cfg.Hub.Gateway.String(), cfg.ClusterDomain),
		"hosts":       HostsFile(pod, ip.String(), cfg.ClusterDomain),
		"hostname":    Hostname(pod) + "\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	if p.volumes == nil {
		p.volumes = &volumes.Set{
			Dir:  filepath.Join(dir, "volumes"),
			Src:  sources{p.rt},
			Info: podenv.Pod{Pod: pod, PodIP: ip.String(), HostIP: cfg.NodeIP, NodeAllocatable: cfg.Allocatable},
		}
	}
	paths, err := p.volumes.Prepare(p.ctx)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.volumePaths = paths
	p.mu.Unlock()
	return nil
}

// refreshVolumes keeps ConfigMap, Secret, downward API and projected volumes current (and
// tokens fresh), as the kubelet's periodic sync does.
func (p *Pod) refreshVolumes() {
	t := time.NewTicker(20 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
			if err := p.volumes.Refresh(p.ctx); err != nil {
				p.logf("refresh volumes: %v", err)
			}
		}
	}
}

// vethName is the hub side of the pod's veth pair (15 characters at most).
func vethName(uid types.UID) string {
	s := string(uid)
	if len(s) > 8 {
		s = s[:8]
	}
	return "vp" + s
}

// stop ends the pod: no more restarts, every container TERMed and KILLed after grace, the
// sandbox torn down. With publish, the pod's final status is published.
func (p *Pod) stop(grace time.Duration, publish bool) {
	p.mu.Lock()
	p.terminating = true
	p.mu.Unlock()
	p.cancel()
	var wg sync.WaitGroup
	for _, c := range append(append([]*Container{}, p.inits...), p.containers...) {
		wg.Add(1)
		go func(c *Container) {
			defer wg.Done()
			c.kill(grace)
		}(c)
	}
	wg.Wait()
	<-p.done
	if publish {
		p.changed()
	}
}

// teardown removes the network namespace and the pod's state (not its logs, not PVC data).
func (p *Pod) teardown() {
	if p.veth != "" {
		if err := p.rt.cfg.Hub.RemovePod(p.veth); err != nil {
			p.logf("remove veth: %v", err)
		}
		p.netns.Close()
	}
	// A container root is a mount point only inside its own (gone) mount namespace: the
	// directory tree is plain on the host.
	if err := os.RemoveAll(p.rt.podDir(p.uid)); err != nil {
		p.logf("remove state: %v", err)
	}
}

// gracePeriod is how long a deleted pod's containers get between TERM and KILL.
func gracePeriod(pod *corev1.Pod) time.Duration {
	if pod.DeletionGracePeriodSeconds != nil {
		return time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second
	}
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		return time.Duration(*pod.Spec.TerminationGracePeriodSeconds) * time.Second
	}
	return 30 * time.Second
}
