package runtime

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/backoff"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/imagetable"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/podenv"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/probe"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/sandbox"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/volumes"
)

// Container is one container of a pod and its current process. Its fields are guarded by the
// pod's mutex.
type Container struct {
	pod  *Pod
	spec *corev1.Container
	init bool

	state        corev1.ContainerState
	last         corev1.ContainerState
	restartCount int32
	ready        bool
	started      bool
	instance     int // increases with every start attempt
	runs         int // processes started (or failed to start) so far
	lastExit     *corev1.ContainerStateTerminated
	backoff      backoff.State

	proc     *process // the running process, or nil
	stopping bool     // a kill is under way: the exit is not a crash
}

type process struct {
	cmd     *exec.Cmd
	pid     int
	env     []string
	uid     uint32
	gid     uint32
	groups  []uint32
	exited  chan struct{}
	code    int
	started time.Time
}

func newContainer(p *Pod, spec *corev1.Container, init bool) *Container {
	return &Container{pod: p, spec: spec, init: init,
		state: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}
}

func (c *Container) sidecar() bool {
	return c.init && c.spec.RestartPolicy != nil && *c.spec.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

func (c *Container) logf(format string, args ...any) {
	c.pod.logf("container %s: %s", c.spec.Name, fmt.Sprintf(format, args...))
}

// simulate marks the container Running and Ready, as kwok does. Called with the pod's lock held.
func (c *Container) simulate(now metav1.Time) {
	c.state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
	c.ready, c.started = !c.init || c.sidecar(), true
	if c.init && !c.sidecar() {
		c.state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: now, FinishedAt: now}}
	}
}

func (c *Container) simulateStop() {
	if c.state.Running != nil {
		c.state = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: c.state.Running.StartedAt, FinishedAt: metav1.Now()}}
	}
	c.ready = false
}

// supervise runs the container for as long as the pod lives, restarting it per policy with the
// kubelet's back-off.
func (c *Container) supervise(policy corev1.RestartPolicy) {
	for c.pod.ctx.Err() == nil {
		code, ran, ok := c.runOnce()
		if !ok {
			continue // a start that could not happen: runOnce already waited
		}
		if c.pod.ctx.Err() != nil {
			return
		}
		if policy == corev1.RestartPolicyNever || (policy == corev1.RestartPolicyOnFailure && code == 0) {
			return
		}
		if !c.backOff(ran) {
			return
		}
	}
}

// runToCompletion runs an init container until it succeeds; false when it failed for good
// (restartPolicy Never) or the pod stopped.
func (c *Container) runToCompletion(policy corev1.RestartPolicy) bool {
	for c.pod.ctx.Err() == nil {
		code, ran, ok := c.runOnce()
		if !ok {
			continue
		}
		if code == 0 {
			return true
		}
		if policy == corev1.RestartPolicyNever || c.pod.ctx.Err() != nil {
			return false
		}
		if !c.backOff(ran) {
			return false
		}
	}
	return false
}

// backOff waits before the next start, showing CrashLoopBackOff meanwhile; false when the pod
// stopped.
func (c *Container) backOff(ran time.Duration) bool {
	p := c.pod
	p.mu.Lock()
	d := c.backoff.Next(p.rt.cfg.Backoff, ran)
	if d > 0 {
		c.last = corev1.ContainerState{Terminated: c.lastExit}
		c.state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason:  "CrashLoopBackOff",
			Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", d, c.spec.Name, p.key.Name, p.key.Namespace, p.uid),
		}}
	}
	p.mu.Unlock()
	if d == 0 {
		return true
	}
	p.changed()
	select {
	case <-p.ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// runOnce starts the process and waits for it to exit: its exit code and how long it ran; ok
// is false when it could not start (the reason is in the status; this already waited a little).
func (c *Container) runOnce() (code int, ran time.Duration, ok bool) {
	p := c.pod
	proc, err := c.start()
	if err != nil {
		var reason string
		var ce *podenv.ConfigError
		switch {
		case errors.As(err, &ce):
			reason = "CreateContainerConfigError"
		case errors.Is(err, errStart):
			reason = "StartError"
		default:
			reason = "CreateContainerError"
		}
		c.logf("%s: %v", reason, err)
		p.mu.Lock()
		if reason == "StartError" {
			now := metav1.Now()
			c.lastExit = &corev1.ContainerStateTerminated{ExitCode: 128, Reason: reason, Message: err.Error(), StartedAt: now, FinishedAt: now}
			c.state = corev1.ContainerState{Terminated: c.lastExit}
			c.runs++
		} else {
			c.state = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: err.Error()}}
		}
		p.mu.Unlock()
		p.changed()
		if reason == "StartError" {
			return 128, 0, true
		}
		select {
		case <-p.ctx.Done():
		case <-time.After(2 * time.Second):
		}
		return 0, 0, false
	}
	probeCtx, stopProbes := context.WithCancel(p.ctx)
	go c.probe(probeCtx, proc)
	<-proc.exited
	stopProbes()
	ran = time.Since(proc.started)
	p.mu.Lock()
	started := metav1.NewTime(proc.started)
	if c.state.Running != nil {
		started = c.state.Running.StartedAt
	}
	reason := "Completed"
	if proc.code != 0 {
		reason = "Error"
	}
	term := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: int32(proc.code), Reason: reason, StartedAt: started, FinishedAt: metav1.Now(),
		ContainerID: c.containerID(),
	}}
	c.state, c.ready, c.proc, c.lastExit = term, false, nil, term.Terminated
	stopping := c.stopping
	p.mu.Unlock()
	if !stopping {
		c.logf("exited with %d after %s", proc.code, ran.Round(time.Millisecond))
	}
	p.changed()
	return proc.code, ran, true
}

func (c *Container) containerID() string {
	return fmt.Sprintf("realpods://%s-%s-%d", c.pod.uid, c.spec.Name, c.instance)
}

var errStart = errors.New("start failed")

// start launches one process of the container in its sandbox.
func (c *Container) start() (*process, error) {
	p := c.pod
	rt := p.rt
	cfg := rt.cfg
	p.mu.Lock()
	pod := p.pod.DeepCopy()
	ip := p.ip.String()
	paths := p.volumePaths
	p.mu.Unlock()

	img, _ := cfg.Table.Lookup(c.spec.Image)
	var imageEnv []podenv.Var
	for _, e := range img.Env {
		imageEnv = append(imageEnv, podenv.Var{Name: e.Name, Value: e.Value})
	}
	svcEnv := podenv.ServiceEnv(pod.Namespace, pod.Spec.EnableServiceLinks, rt.services(pod.Namespace))
	info := podenv.Pod{Pod: pod, PodIP: ip, HostIP: cfg.NodeIP, NodeAllocatable: cfg.Allocatable}
	env, err := podenv.Resolve(sources{rt}, info, c.spec, imageEnv, svcEnv)
	if err != nil {
		return nil, err
	}
	argv, err := img.Resolve(c.spec.Command, c.spec.Args)
	if err != nil {
		return nil, &podenv.ConfigError{Message: err.Error()}
	}
	argv = podenv.Argv(argv, env)

	ids, err := identity(pod, c.spec, img)
	if err != nil {
		return nil, err
	}
	envList := environ(env, ids.uid, Hostname(pod))

	dir := filepath.Join(rt.podDir(p.uid), "containers", c.spec.Name)
	p.mu.Lock()
	c.instance++
	instance := c.instance
	// A start after an exit is a restart: its log is the next file (<restartCount>.log), as with
	// the kubelet.
	restarts := c.restartCount
	if c.runs > 0 {
		restarts++
	}
	p.mu.Unlock()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	mounts, err := c.mounts(paths, env)
	if err != nil {
		return nil, &podenv.ConfigError{Message: err.Error()}
	}
	// The image's own files (the table's files column): each top entry read-only at /<entry>,
	// under the pod's volumes (mounts are sorted parents first).
	imageFiles, err := imageFileMounts(img.Files)
	if err != nil {
		return nil, err
	}
	mounts = append(imageFiles, mounts...)
	podDir := rt.podDir(p.uid)
	program := ""
	if img.Binary != "" && argv[0] == img.Binary {
		// The host binary is bound read-only at a fixed path and run from there: the clone that
		// holds it may live under /tmp, which the container's own /tmp hides.
		mounts = append(mounts, sandbox.Mount{Source: img.Binary, Target: sandbox.ProgramPath, ReadOnly: true})
		program = sandbox.ProgramPath
		argv[0] = img.Entrypoint
	}
	mounts = append(mounts,
		sandbox.Mount{Source: filepath.Join(podDir, "hosts"), Target: "/etc/hosts"},
		sandbox.Mount{Source: filepath.Join(podDir, "resolv.conf"), Target: "/etc/resolv.conf"},
		sandbox.Mount{Source: filepath.Join(podDir, "hostname"), Target: "/etc/hostname"})
	sc := c.spec.SecurityContext
	var add, drop []string
	if sc != nil && sc.Capabilities != nil {
		for _, a := range sc.Capabilities.Add {
			add = append(add, string(a))
		}
		for _, d := range sc.Capabilities.Drop {
			drop = append(drop, string(d))
		}
	}
	spec := &sandbox.Spec{
		Root: root, Hostname: Hostname(pod), Mounts: mounts,
		ReadOnlyRoot: sc != nil && sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem,
		UID:          ids.uid, GID: ids.gid, Groups: ids.groups,
		WorkingDir: cmp.Or(c.spec.WorkingDir, img.WorkDir), Program: program, Argv: argv, Env: envList,
		Capabilities: sandbox.Capabilities(add, drop),
		NoNewPrivs:   sc != nil && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation,
	}
	specPath := filepath.Join(dir, "spec-"+strconv.Itoa(instance)+".json")
	if err := spec.Write(specPath); err != nil {
		return nil, err
	}
	logDir := rt.logDir(pod, c.spec.Name)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	logFile, err := os.OpenFile(filepath.Join(logDir, strconv.Itoa(int(restarts))+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer errR.Close()
	cmd := &exec.Cmd{
		Path:       cfg.AgentBinary,
		Args:       []string{cfg.AgentBinary, "container-init", specPath},
		Env:        []string{},
		Stdout:     logFile,
		Stderr:     logFile,
		ExtraFiles: []*os.File{errW},
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC,
			Setsid:     true,
			Pdeathsig:  syscall.SIGKILL,
		},
	}
	err = cfg.Spawner.Start(p.netns, cmd.Start)
	errW.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errStart, err)
	}
	// container-init writes to the pipe only when it fails; the exec closes it (close-on-exec).
	msg, _ := io.ReadAll(errR)
	if len(msg) > 0 {
		_ = cmd.Wait()
		return nil, fmt.Errorf("%w: %s", errStart, msg)
	}
	proc := &process{cmd: cmd, pid: cmd.Process.Pid, env: envList, uid: ids.uid, gid: ids.gid, groups: ids.groups, exited: make(chan struct{}), started: time.Now()}
	writePidFile(filepath.Join(dir, "pid"), proc.pid)
	go func() {
		err := cmd.Wait()
		proc.code = exitCode(cmd, err)
		close(proc.exited)
	}()
	p.mu.Lock()
	if c.runs > 0 {
		c.last = corev1.ContainerState{Terminated: c.lastExit}
		c.restartCount++
	}
	c.runs++
	c.state = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(proc.started)}}
	c.proc, c.stopping = proc, false
	c.started = c.spec.StartupProbe == nil
	c.ready = c.spec.ReadinessProbe == nil && c.started
	if c.init && !c.sidecar() {
		c.ready = false
	}
	p.mu.Unlock()
	p.changed()
	return proc, nil
}

func exitCode(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState == nil {
		return 128
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

// mounts are the container's volumeMounts as host sources.
func (c *Container) mounts(paths map[string]string, env []podenv.Var) ([]sandbox.Mount, error) {
	envMap := map[string]string{}
	for _, v := range env {
		envMap[v.Name] = v.Value
	}
	var out []sandbox.Mount
	for _, vm := range c.spec.VolumeMounts {
		src, ok := paths[vm.Name]
		if !ok {
			return nil, fmt.Errorf("volumeMount %q names no volume of the pod", vm.Name)
		}
		sub := vm.SubPath
		if vm.SubPathExpr != "" {
			sub = podenv.Expand(vm.SubPathExpr, func(n string) (string, bool) { v, ok := envMap[n]; return v, ok })
		}
		s, err := volumes.SubPath(src, sub)
		if err != nil {
			return nil, err
		}
		ro := vm.ReadOnly || c.contentVolume(vm.Name)
		out = append(out, sandbox.Mount{Source: s, Target: vm.MountPath, ReadOnly: ro})
	}
	return out, nil
}

// contentVolume: the kubelet mounts ConfigMap, Secret, downward API and projected volumes
// read-only.
func (c *Container) contentVolume(name string) bool {
	for _, v := range c.pod.pod.Spec.Volumes {
		if v.Name == name {
			return v.ConfigMap != nil || v.Secret != nil || v.DownwardAPI != nil || v.Projected != nil
		}
	}
	return false
}

type ids struct {
	uid, gid uint32
	groups   []uint32
}

// identity is the process's user and groups from the security contexts (the container's over
// the pod's): runAsUser (else the image's USER from the table, else root), runAsGroup (else the
// image's group when its user is used, else the user's primary group), and fsGroup and
// supplementalGroups as supplementary groups. runAsNonRoot is checked against the result, as
// the kubelet checks it against the image's user.
func identity(pod *corev1.Pod, c *corev1.Container, img imagetable.Image) (ids, error) {
	var uid, gid *int64
	nonRoot := false
	if ps := pod.Spec.SecurityContext; ps != nil {
		uid, gid = ps.RunAsUser, ps.RunAsGroup
		nonRoot = ps.RunAsNonRoot != nil && *ps.RunAsNonRoot
	}
	if cs := c.SecurityContext; cs != nil {
		if cs.RunAsUser != nil {
			uid = cs.RunAsUser
		}
		if cs.RunAsGroup != nil {
			gid = cs.RunAsGroup
		}
		if cs.RunAsNonRoot != nil {
			nonRoot = *cs.RunAsNonRoot
		}
	}
	if uid == nil && img.User != nil {
		uid = img.User
		if gid == nil {
			gid = img.Group
		}
	}
	var out ids
	if uid != nil {
		out.uid = uint32(*uid)
	}
	if nonRoot && out.uid == 0 {
		return out, &podenv.ConfigError{Message: "container has runAsNonRoot and image will run as root"}
	}
	switch {
	case gid != nil:
		out.gid = uint32(*gid)
	default:
		if g, _, ok := passwdEntry(int64(out.uid)); ok {
			out.gid = uint32(g)
		}
	}
	if ps := pod.Spec.SecurityContext; ps != nil {
		if ps.FSGroup != nil {
			out.groups = append(out.groups, uint32(*ps.FSGroup))
		}
		for _, g := range ps.SupplementalGroups {
			out.groups = append(out.groups, uint32(g))
		}
	}
	return out, nil
}

// environ is the process environment: the resolved variables plus what the runtime adds (PATH,
// HOSTNAME and HOME when missing).
func environ(env []podenv.Var, uid uint32, hostname string) []string {
	have := map[string]bool{}
	var out []string
	for _, v := range env {
		have[v.Name] = true
		out = append(out, v.Name+"="+v.Value)
	}
	if !have["PATH"] {
		out = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, out...)
	}
	if !have["HOSTNAME"] {
		out = append(out, "HOSTNAME="+hostname)
	}
	if !have["HOME"] {
		home := "/"
		if _, h, ok := passwdEntry(int64(uid)); ok && h != "" {
			home = h
		}
		out = append(out, "HOME="+home)
	}
	return out
}

// kill stops the current process: TERM, then KILL after grace.
func (c *Container) kill(grace time.Duration) {
	p := c.pod
	p.mu.Lock()
	proc := c.proc
	if proc != nil {
		c.stopping = true
	}
	p.mu.Unlock()
	if proc == nil {
		return
	}
	_ = syscall.Kill(proc.pid, syscall.SIGTERM)
	select {
	case <-proc.exited:
		return
	case <-time.After(grace):
	}
	_ = syscall.Kill(proc.pid, syscall.SIGKILL)
	<-proc.exited
}

// probe runs the startup, then the liveness and readiness probes of one process.
func (c *Container) probe(ctx context.Context, proc *process) {
	p := c.pod
	target := probe.Target{
		PodIP: p.ip.String(),
		Ports: c.spec.Ports,
		Dial:  p.rt.cfg.Hub.DialContext,
		Exec: func(ctx context.Context, cmd []string) ([]byte, int, error) {
			return p.rt.execIn(ctx, proc, cmd, nil, nil, nil)
		},
	}
	if sp := c.spec.StartupProbe; sp != nil {
		if !c.startupProbe(ctx, sp, target) {
			return
		}
		p.mu.Lock()
		c.started = true
		c.ready = c.spec.ReadinessProbe == nil
		p.mu.Unlock()
		p.changed()
	}
	var wg sync.WaitGroup
	if lp := c.spec.LivenessProbe; lp != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.runProbe(ctx, lp, target, true, func(ok bool) bool {
				if !ok {
					c.logf("liveness probe failed: restarting")
					go c.kill(probeGrace(p.pod, lp))
					return false
				}
				return true
			})
		}()
	}
	if rp := c.spec.ReadinessProbe; rp != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.runProbe(ctx, rp, target, false, func(ok bool) bool {
				p.mu.Lock()
				c.ready = ok
				p.mu.Unlock()
				p.changed()
				return true
			})
		}()
	}
	wg.Wait()
}

// probeLoop runs a probe on its schedule (initial delay, then every period) and hands each
// result to step until step says stop (true) or ctx ends (false).
func probeLoop(ctx context.Context, pr *corev1.Probe, t probe.Target, step func(ok bool, msg string) bool) bool {
	timing := probe.TimingOf(pr)
	select {
	case <-ctx.Done():
		return false
	case <-time.After(timing.InitialDelay):
	}
	tick := time.NewTicker(timing.Period)
	defer tick.Stop()
	for {
		ok, msg := probe.Run(ctx, pr, t)
		if ctx.Err() != nil {
			return false
		}
		if step(ok, msg) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// runProbe probes until ctx ends; onChange is called when the verdict flips and says whether to
// go on.
func (c *Container) runProbe(ctx context.Context, pr *corev1.Probe, t probe.Target, initial bool, onChange func(bool) bool) {
	th := probe.NewThresholds(pr, initial)
	probeLoop(ctx, pr, t, func(ok bool, msg string) bool {
		if !ok && msg != "" {
			c.logf("probe: %s", msg)
		}
		return th.Observe(ok) && !onChange(th.Result)
	})
}

// startupProbe probes until success (true) or failureThreshold failures in a row, when the
// container is killed to be restarted (false; also when ctx ended).
func (c *Container) startupProbe(ctx context.Context, pr *corev1.Probe, t probe.Target) bool {
	th := probe.NewThresholds(pr, false)
	failures, started := int32(0), false
	probeLoop(ctx, pr, t, func(ok bool, msg string) bool {
		if ok {
			started = true
			return true
		}
		failures++
		if failures >= th.Failure {
			c.logf("startup probe failed %d times (%s): restarting", failures, msg)
			go c.kill(probeGrace(c.pod.pod, pr))
			return true
		}
		return false
	})
	return started
}

func probeGrace(pod *corev1.Pod, pr *corev1.Probe) time.Duration {
	if pr.TerminationGracePeriodSeconds != nil {
		return time.Duration(*pr.TerminationGracePeriodSeconds) * time.Second
	}
	return gracePeriod(pod)
}

// waitStarted waits until a sidecar has started; false when the pod stopped first.
func (c *Container) waitStarted(ctx context.Context) bool {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		c.pod.mu.Lock()
		ok := c.started && c.proc != nil
		c.pod.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}

func writePidFile(path string, pid int) {
	start := ""
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		s := string(b)
		if i := strings.LastIndex(s, ") "); i >= 0 {
			f := strings.Fields(s[i+2:])
			if len(f) > 19 {
				start = f[19]
			}
		}
	}
	_ = os.WriteFile(path, []byte(strconv.Itoa(pid)+" "+start+"\n"), 0o644)
}

// imageFileMounts binds each entry at the top of an image's files folder (the image table's files
// column) read-only at /<entry>, as the image's layers would hold it; none without a folder.
func imageFileMounts(dir string) ([]sandbox.Mount, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the image's files: %w", err)
	}
	var mounts []sandbox.Mount
	for _, e := range entries {
		mounts = append(mounts, sandbox.Mount{Source: filepath.Join(dir, e.Name()), Target: "/" + e.Name(), ReadOnly: true})
	}
	return mounts, nil
}
