package runtime

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	"github.com/virtual-kubelet/virtual-kubelet/node/api"
	corev1 "k8s.io/api/core/v1"
	statsv1alpha1 "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
)

// Provider is one node's virtual-kubelet provider (pod lifecycle, logs, exec) over the shared
// runtime.
type Provider struct {
	rt   *Runtime
	node string
}

// Provider returns the provider of a node.
func (r *Runtime) Provider(node string) *Provider { return &Provider{rt: r, node: node} }

// NotifyPods registers virtual-kubelet's status callback (asynchronous provider).
func (p *Provider) NotifyPods(_ context.Context, f func(*corev1.Pod)) {
	p.rt.mu.Lock()
	p.rt.notify[p.node] = f
	p.rt.mu.Unlock()
}

// CreatePod starts the pod.
func (p *Provider) CreatePod(_ context.Context, pod *corev1.Pod) error {
	p.rt.create(pod)
	return nil
}

// UpdatePod takes the pod's newer object.
func (p *Provider) UpdatePod(_ context.Context, pod *corev1.Pod) error {
	p.rt.mu.Lock()
	rp := p.rt.pods[pod.UID]
	p.rt.mu.Unlock()
	if rp == nil {
		p.rt.create(pod)
		return nil
	}
	rp.update(pod)
	return nil
}

// DeletePod stops the pod in the background (TERM, the grace period, KILL), publishes its final
// status and removes it from the API, as the kubelet does.
func (p *Provider) DeletePod(_ context.Context, pod *corev1.Pod) error {
	p.rt.mu.Lock()
	rp := p.rt.pods[pod.UID]
	p.rt.mu.Unlock()
	if rp == nil {
		rp = p.rt.find(pod.Namespace, pod.Name)
	}
	if rp == nil {
		return errdefs.NotFound("pod not found")
	}
	rp.mu.Lock()
	already := rp.terminating
	rp.terminating = true
	rp.pod.DeletionTimestamp = pod.DeletionTimestamp
	rp.pod.DeletionGracePeriodSeconds = pod.DeletionGracePeriodSeconds
	rp.mu.Unlock()
	if already {
		return nil
	}
	grace := gracePeriod(pod)
	go func() {
		rp.stop(grace, true)
		p.rt.forget(rp)
		if pod.DeletionTimestamp != nil {
			p.rt.forceDelete(pod)
		}
	}()
	return nil
}

// GetPod returns the pod with its current status.
func (p *Provider) GetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	rp := p.rt.find(namespace, name)
	if rp == nil {
		return nil, errdefs.NotFoundf("pod %s/%s not found", namespace, name)
	}
	return rp.snapshot(), nil
}

// GetPodStatus returns the pod's current status.
func (p *Provider) GetPodStatus(ctx context.Context, namespace, name string) (*corev1.PodStatus, error) {
	pod, err := p.GetPod(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return &pod.Status, nil
}

// GetPods lists this node's pods.
func (p *Provider) GetPods(context.Context) ([]*corev1.Pod, error) {
	p.rt.mu.Lock()
	pods := make([]*Pod, 0, len(p.rt.pods))
	for _, rp := range p.rt.pods {
		pods = append(pods, rp)
	}
	p.rt.mu.Unlock()
	var out []*corev1.Pod
	for _, rp := range pods {
		s := rp.snapshot()
		if s.Spec.NodeName == p.node {
			out = append(out, s)
		}
	}
	return out, nil
}

// GetContainerLogs serves `kubectl logs` from the container's log files (tail, follow,
// previous and limitBytes are honoured).
func (p *Provider) GetContainerLogs(ctx context.Context, namespace, podName, container string, opts api.ContainerLogOpts) (io.ReadCloser, error) {
	rp := p.rt.find(namespace, podName)
	if rp == nil {
		return nil, errdefs.NotFoundf("pod %s/%s not found", namespace, podName)
	}
	rp.mu.Lock()
	var c *Container
	for _, x := range append(append([]*Container{}, rp.inits...), rp.containers...) {
		if x.spec.Name == container {
			c = x
		}
	}
	if c == nil {
		rp.mu.Unlock()
		return nil, errdefs.NotFoundf("container %s not found in pod %s/%s", container, namespace, podName)
	}
	n := int(c.restartCount)
	instance := c.instance
	pod := rp.pod
	rp.mu.Unlock()
	if opts.Previous {
		if n == 0 {
			return nil, errdefs.InvalidInputf("previous terminated container %q in pod %q not found", container, podName)
		}
		n--
	}
	path := filepath.Join(p.rt.logDir(pod, container), strconv.Itoa(n)+".log")
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return io.NopCloser(strings.NewReader("")), nil
		}
		return nil, err
	}
	if opts.Tail > 0 {
		if err := seekTail(f, opts.Tail); err != nil {
			f.Close()
			return nil, err
		}
	}
	var r io.Reader = f
	if opts.Follow && !opts.Previous {
		r = &follower{ctx: ctx, f: f, alive: func() bool {
			rp.mu.Lock()
			defer rp.mu.Unlock()
			return c.instance == instance && c.proc != nil
		}}
	}
	if opts.LimitBytes > 0 {
		r = io.LimitReader(r, int64(opts.LimitBytes))
	}
	return struct {
		io.Reader
		io.Closer
	}{r, f}, nil
}

// seekTail positions f at the start of its last n lines.
func seekTail(f *os.File, n int) error {
	var offsets []int64
	var pos int64
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			offsets = append(offsets, pos)
			pos += int64(len(line))
		}
		if err != nil {
			break
		}
	}
	start := int64(0)
	if len(offsets) > n {
		start = offsets[len(offsets)-n]
	}
	_, err := f.Seek(start, io.SeekStart)
	return err
}

// follower reads a growing file until the process is gone (and the file drained) or ctx ends.
type follower struct {
	ctx   context.Context
	f     *os.File
	alive func() bool
}

func (fl *follower) Read(b []byte) (int, error) {
	for {
		n, err := fl.f.Read(b)
		if n > 0 || (err != nil && err != io.EOF) {
			return n, err
		}
		if !fl.alive() {
			return 0, io.EOF
		}
		select {
		case <-fl.ctx.Done():
			return 0, io.EOF
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// RunInContainer serves `kubectl exec` (no TTY): the command runs in the container's
// namespaces, root and working directory, as its user, with its environment.
func (p *Provider) RunInContainer(ctx context.Context, namespace, podName, container string, cmd []string, attach api.AttachIO) error {
	rp := p.rt.find(namespace, podName)
	if rp == nil {
		return errdefs.NotFoundf("pod %s/%s not found", namespace, podName)
	}
	rp.mu.Lock()
	var proc *process
	for _, c := range append(append([]*Container{}, rp.inits...), rp.containers...) {
		if c.spec.Name == container {
			proc = c.proc
		}
	}
	rp.mu.Unlock()
	if proc == nil {
		return errdefs.InvalidInputf("container %s of pod %s/%s is not running (or is simulated)", container, namespace, podName)
	}
	var stdin io.Reader
	if attach.Stdin() != nil {
		stdin = attach.Stdin()
	}
	_, code, err := p.rt.execIn(ctx, proc, cmd, stdin, attach.Stdout(), attach.Stderr())
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("command terminated with exit code %d", code)
	}
	return nil
}

// execIn runs cmd inside a container's namespaces (nsenter), as its user and groups (setpriv),
// with its environment. Without stdout, the combined output is returned.
func (r *Runtime) execIn(ctx context.Context, proc *process, cmd []string, stdin io.Reader, stdout, stderr io.Writer) ([]byte, int, error) {
	args := []string{"--target", strconv.Itoa(proc.pid), "--mount", "--uts", "--ipc", "--net", "--pid", "--root", "--wd", "--",
		"/usr/bin/setpriv", "--reuid", strconv.Itoa(int(proc.uid)), "--regid", strconv.Itoa(int(proc.gid))}
	if len(proc.groups) == 0 {
		args = append(args, "--clear-groups")
	} else {
		gs := make([]string, len(proc.groups))
		for i, g := range proc.groups {
			gs[i] = strconv.Itoa(int(g))
		}
		args = append(args, "--groups", strings.Join(gs, ","))
	}
	args = append(args, "--", "/usr/bin/env", "-i")
	args = append(args, proc.env...)
	args = append(args, cmd...)
	c := exec.CommandContext(ctx, "nsenter", args...)
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c.Stdin = stdin
	var out []byte
	var err error
	if stdout == nil {
		out, err = c.CombinedOutput()
	} else {
		c.Stdout, c.Stderr = stdout, stderr
		err = c.Run()
	}
	if c.ProcessState != nil {
		return out, c.ProcessState.ExitCode(), nil
	}
	return out, -1, err
}

// AttachToContainer is not supported: the processes' output goes to their log files only.
func (p *Provider) AttachToContainer(context.Context, string, string, string, api.AttachIO) error {
	return errdefs.InvalidInput("attach is not supported by realpods")
}

// GetStatsSummary is not supported (no cgroups).
func (p *Provider) GetStatsSummary(context.Context) (*statsv1alpha1.Summary, error) {
	return nil, errdefs.InvalidInput("stats are not supported by realpods")
}

// GetMetricsResource is not supported (no cgroups).
func (p *Provider) GetMetricsResource(context.Context) ([]*dto.MetricFamily, error) {
	return nil, errdefs.InvalidInput("metrics are not supported by realpods")
}

// PortForward connects a `kubectl port-forward` stream to the pod's port (from the hub).
func (p *Provider) PortForward(ctx context.Context, namespace, podName string, port int32, stream io.ReadWriteCloser) error {
	rp := p.rt.find(namespace, podName)
	if rp == nil {
		return errdefs.NotFoundf("pod %s/%s not found", namespace, podName)
	}
	rp.mu.Lock()
	ip := podIPString(rp.ip)
	rp.mu.Unlock()
	conn, err := p.rt.cfg.Hub.DialContext(ctx, "tcp", ip+":"+strconv.Itoa(int(port)))
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}

// KillLeftovers kills the processes a previous agent run recorded (pid files whose start time
// still matches) and removes its pod state: a restarted agent leaks nothing.
func KillLeftovers(stateDir string) (int, error) {
	files, _ := filepath.Glob(filepath.Join(stateDir, "pods", "*", "containers", "*", "pid"))
	sort.Strings(files)
	killed := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b))
		if len(fields) != 2 {
			continue
		}
		pid, err := strconv.Atoi(fields[0])
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + fields[0] + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndex(s, ") ")
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+2:])
		if len(f) > 19 && f[19] == fields[1] {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	return killed, os.RemoveAll(filepath.Join(stateDir, "pods"))
}
