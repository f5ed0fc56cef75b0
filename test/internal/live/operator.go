package live

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
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat: 100 on every Linux
// architecture Go supports (the kernel ABI fixes it, whatever CONFIG_HZ is).
const clockTicks = 100

// Operator runs the operator as a local process through hack/lib/operator.sh (the same code as
// make run-local and the e2e suite use), with Env added to this process's environment
// (LOCAL_CLUSTER_INSTANCE, OPERATOR_BINARY, OPERATOR_LISTEN, OPERATOR_PIDFILE, ...). Two
// Operators with their own OPERATOR_LISTEN and OPERATOR_PIDFILE run two processes side by side.
type Operator struct {
	Root string
	// Listen is the operator's OPERATOR_LISTEN, where /healthz answers.
	Listen string
	// Log is its OPERATOR_LOG, named in errors.
	Log string
	Env []string
}

// Proc is one operator process: its pid and start time (its identity against pid reuse).
type Proc struct {
	Pid     int
	Ticks   uint64    // start time in clock ticks since boot (/proc/<pid>/stat field 22)
	Started time.Time // when the process was forked
}

// Script runs hack/lib/operator.sh with the Operator's settings and returns its stdout; its
// stderr goes to this process's.
func (o *Operator) Script(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(o.Root, "hack", "lib", "operator.sh"), args...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/lib/operator.sh %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// Start starts the operator (hack/lib/operator.sh start) and returns its process; whether it
// waits for /healthz is the Env's OPERATOR_WAIT_HEALTHY.
func (o *Operator) Start() (*Proc, error) {
	out, err := o.Script("start")
	if err != nil {
		return nil, err
	}
	os.Stderr.WriteString(out)
	if out, err = o.Script("pid"); err != nil {
		return nil, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return nil, fmt.Errorf("hack/lib/operator.sh pid: %q is not a pid", out)
	}
	ticks, started, err := ProcessStart(pid)
	if err != nil {
		return nil, err
	}
	return &Proc{Pid: pid, Ticks: ticks, Started: started}, nil
}

// Stop stops the operator (hack/lib/operator.sh stop: TERM, so it releases its leader Lease on
// the way out, and KILL after OPERATOR_STOP_TIMEOUT).
func (o *Operator) Stop() error {
	out, err := o.Script("stop")
	os.Stderr.WriteString(out)
	return err
}

// Kill sends SIGKILL to p, when it is still the process started, and waits until it is gone
// (its parent, hack/lib/proc.sh's detached shell, reaps it).
func (o *Operator) Kill(ctx context.Context, p *Proc) error {
	if !p.Running() {
		return nil
	}
	if err := syscall.Kill(p.Pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %d: %w", p.Pid, err)
	}
	return Poll(ctx, 20*time.Millisecond, 30*time.Second, func() (bool, error) { return !p.Running(), nil })
}

// Running says whether the process is still the one started (same pid and start time) and
// not a zombie.
func (p *Proc) Running() bool {
	if p == nil {
		return false
	}
	f, err := ProcStat(p.Pid)
	if err != nil || len(f) < 20 {
		return false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	return err == nil && ticks == p.Ticks && f[0] != "Z" && f[0] != "X"
}

// WaitHealthy polls the operator's /healthz until it answers ok; it returns when that was.
func (o *Operator) WaitHealthy(ctx context.Context, p *Proc, timeout time.Duration) (time.Time, error) {
	client := &http.Client{
		Timeout:   time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // local self-signed
	}
	defer client.CloseIdleConnections()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !p.Running() {
			return time.Time{}, fmt.Errorf("the operator exited; see %s", o.Log)
		}
		resp, err := client.Get("https://" + o.Listen + "/healthz")
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
	return time.Time{}, fmt.Errorf("the operator's /healthz did not answer ok within %s; see %s", timeout, o.Log)
}

// ProcessStart returns the start time of a process: in clock ticks since boot (field 22 of
// /proc/<pid>/stat), and as a wall-clock time, from its age against /proc/uptime (10ms
// resolution).
func ProcessStart(pid int) (uint64, time.Time, error) {
	f, err := ProcStat(pid)
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

// RSSBytes is VmRSS from /proc/<pid>/status.
func RSSBytes(pid int) (float64, error) {
	kb, err := ProcStatusKB(pid, "VmRSS:")
	return kb * 1024, err
}

// ProcStatusKB reads a "Name:  N kB" field of /proc/<pid>/status.
func ProcStatusKB(pid int, field string) (float64, error) {
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

// ProcStat returns the fields of /proc/<pid>/stat from field 3 (state) on: f[0] is field 3,
// f[i] field i+3. The command name (field 2) is in parentheses and may contain spaces: count
// from after it.
func ProcStat(pid int) ([]string, error) {
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

// CPUSeconds is utime+stime from /proc/<pid>/stat.
func CPUSeconds(pid int) (float64, error) {
	f, err := ProcStat(pid)
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

// Poll calls check every interval until it returns true, an error, or timeout passes.
func Poll(ctx context.Context, interval, timeout time.Duration, check func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := check()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
