package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat: 100 on every Linux
// architecture Go supports (the kernel ABI fixes it, whatever CONFIG_HZ is).
const clockTicks = 100

// operatorProc is the operator running as a local process the bench started.
type operatorProc struct {
	pid     int
	started time.Time
	cmd     *exec.Cmd
	done    chan struct{}
	log     *os.File
}

// startOperator starts the operator binary with the ServiceAccount kubeconfig. It returns once
// the process runs; readiness is measured by the caller.
func (b *bench) startOperator() (*operatorProc, error) {
	logFile, err := os.OpenFile(b.operatorLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logFile, "===== %s bench: starting the operator\n", time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(b.operatorBinary, "operator",
		"--kubeconfig", b.saKubeconfig,
		"--namespace", b.namespace,
		"--listen", b.listen)
	// Only what the operator needs from the environment: no KUBECONFIG, so nothing but the
	// ServiceAccount kubeconfig can authenticate it.
	env := []string{"RELATED_IMAGE_OPERAND_IMAGE=" + b.operandImage}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// Its own process group: a Ctrl-C on the terminal reaches the bench, which stops the
	// operator in order; Pdeathsig stops it should the bench die.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	started := time.Now()
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &operatorProc{pid: cmd.Process.Pid, started: started, cmd: cmd, done: make(chan struct{}), log: logFile}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *operatorProc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop sends TERM (the operator releases its leader Lease on the way out) and KILL after 30s.
func (p *operatorProc) stop() {
	if p == nil {
		return
	}
	defer p.log.Close()
	if !p.running() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	fmt.Fprintf(p.log, "===== %s bench: operator (pid %d) stopped\n", time.Now().UTC().Format(time.RFC3339Nano), p.pid)
}

// waitHealthy polls the operator's /healthz until it answers ok; it returns when that was.
func (b *bench) waitHealthy(ctx context.Context, p *operatorProc, timeout time.Duration) (time.Time, error) {
	client := &http.Client{
		Timeout:   time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // local self-signed
	}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !p.running() {
			return time.Time{}, fmt.Errorf("the operator exited; see %s", b.operatorLog)
		}
		resp, err := client.Get("https://" + b.listen + "/healthz")
		if err == nil {
			ok := resp.StatusCode == http.StatusOK
			resp.Body.Close()
			if ok {
				return time.Now(), nil
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return time.Time{}, fmt.Errorf("the operator's /healthz did not answer ok within %s; see %s", timeout, b.operatorLog)
}

// rssBytes is VmRSS from /proc/<pid>/status.
func rssBytes(pid int) (float64, error) {
	kb, err := procStatusKB(pid, "VmRSS:")
	return kb * 1024, err
}

// procStatusKB reads a "Name:  N kB" field of /proc/<pid>/status.
func procStatusKB(pid int, field string) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field) {
			f := strings.Fields(line)
			if len(f) < 2 {
				break
			}
			return strconv.ParseFloat(f[1], 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// scrapeHeap reads go_memstats_heap_inuse_bytes (MiB) from the operator's /metrics, with the
// admin's bearer token (the operator authenticates and authorizes it by delegation). NaN when
// the admin has no token or the scrape fails.
func (b *bench) scrapeHeap(ctx context.Context) float64 {
	if b.admin == nil || b.admin.BearerToken == "" {
		return math.NaN()
	}
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // local self-signed
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+b.listen+"/metrics", nil)
	if err != nil {
		return math.NaN()
	}
	req.Header.Set("Authorization", "Bearer "+b.admin.BearerToken)
	resp, err := client.Do(req)
	if err != nil {
		logf("scrape /metrics: %v", err)
		return math.NaN()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		logf("scrape /metrics: HTTP %d", resp.StatusCode)
		return math.NaN()
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return math.NaN()
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "go_memstats_heap_inuse_bytes ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "go_memstats_heap_inuse_bytes ")), 64)
			if err == nil {
				return v / (1 << 20)
			}
		}
	}
	logf("scrape /metrics: no go_memstats_heap_inuse_bytes")
	return math.NaN()
}

// cpuSeconds is utime+stime from /proc/<pid>/stat.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may contain spaces: count from after it.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat: %v %v", pid, err1, err2)
	}
	return (ut + st) / clockTicks, nil
}
