package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat: 100 on every Linux
// architecture Go supports (the kernel ABI fixes it, whatever CONFIG_HZ is).
const clockTicks = 100

// operatorProc is the operator running as a local process, started and stopped by
// hack/lib/operator.sh (the same code as make run-local and the e2e suite use); the bench keeps
// its pid for /proc figures and its start time for start-up latency.
type operatorProc struct {
	b       *bench
	pid     int
	ticks   uint64    // start time in clock ticks since boot (/proc/<pid>/stat field 22): its identity
	started time.Time // when the process was forked
}

// operatorScript runs hack/lib/operator.sh with the bench's settings and returns its stdout; its
// stderr goes to the bench's.
func (b *bench) operatorScript(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(b.root, "hack", "lib", "operator.sh"), args...)
	cmd.Env = append(os.Environ(),
		"LOCAL_CLUSTER_INSTANCE="+envOr("LOCAL_CLUSTER_INSTANCE", "bench"),
		"OPERATOR_BINARY="+b.operatorBinary,
		"OPERATOR_SKIP_BUILD=true",
		"OPERATOR_KUBECONFIG="+b.saKubeconfig,
		"OPERATOR_LOG="+b.operatorLog,
		"OPERATOR_LISTEN="+b.listen,
		"OPERATOR_NAMESPACE="+b.namespace,
		"OPERAND_IMAGE="+b.operandImage,
		// The bench times /healthz itself, from the process's start.
		"OPERATOR_WAIT_HEALTHY=false",
	)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/lib/operator.sh %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// startOperator starts the operator with the ServiceAccount kubeconfig (hack/lib/operator.sh
// start). It returns once the process runs; readiness is measured by the caller.
func (b *bench) startOperator() (*operatorProc, error) {
	out, err := b.operatorScript("start")
	if err != nil {
		return nil, err
	}
	os.Stderr.WriteString(out)
	if out, err = b.operatorScript("pid"); err != nil {
		return nil, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return nil, fmt.Errorf("hack/lib/operator.sh pid: %q is not a pid", out)
	}
	ticks, started, err := processStart(pid)
	if err != nil {
		return nil, err
	}
	return &operatorProc{b: b, pid: pid, ticks: ticks, started: started}, nil
}

// running: the process is still the one started (same pid and start time) and not a zombie.
func (p *operatorProc) running() bool {
	if p == nil {
		return false
	}
	f, err := procStat(p.pid)
	if err != nil || len(f) < 20 {
		return false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	return err == nil && ticks == p.ticks && f[0] != "Z" && f[0] != "X"
}

// stop stops the operator (hack/lib/operator.sh stop: TERM, so it releases its leader Lease on
// the way out, and KILL after 30s).
func (p *operatorProc) stop() {
	if p == nil {
		return
	}
	if out, err := p.b.operatorScript("stop"); err != nil {
		logf("stopping the operator: %v", err)
	} else {
		os.Stderr.WriteString(out)
	}
}

// processStart returns the start time of a process: in clock ticks since boot (field 22 of
// /proc/<pid>/stat), and as a wall-clock time, from its age against /proc/uptime (10ms
// resolution).
func processStart(pid int) (uint64, time.Time, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, time.Time{}, err
	}
	if len(f) < 20 {
		return 0, time.Time{}, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("parse /proc/%d/stat: %w", pid, err)
	}
	now := time.Now()
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, time.Time{}, err
	}
	fields := strings.Fields(string(up))
	if len(fields) == 0 {
		return 0, time.Time{}, fmt.Errorf("malformed /proc/uptime")
	}
	uptime, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("parse /proc/uptime: %w", err)
	}
	age := time.Duration((uptime - float64(ticks)/clockTicks) * float64(time.Second))
	return ticks, now.Add(-age), nil
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

// procStat returns the fields of /proc/<pid>/stat from field 3 (state) on: f[0] is field 3,
// f[i] field i+3. The command name (field 2) is in parentheses and may contain spaces: count
// from after it.
func procStat(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// cpuSeconds is utime+stime from /proc/<pid>/stat.
func cpuSeconds(pid int) (float64, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	// utime is field 14, stime field 15.
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
