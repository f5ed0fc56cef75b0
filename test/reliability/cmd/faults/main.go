// Command faults is the `faults` suite of make test-reliability (hack/test-reliability.sh): it
// injects faults into the operator on the local cluster and checks that every operand converges
// to exactly the objects of a clean run, that nothing of the user's is lost and that no seeded
// secret value leaks:
//
//   - the operator SIGKILLed at points spread over a convergence, a removal (LWS Removed) and a
//     CR deletion with its finalizer (LWS), counted by its writes in the audit log, and restarted;
//   - kube-apiserver restarted during a convergence and while idle (the operator must reconnect
//     without a restart of its own, and a quiet operator stays quiet);
//   - two operator processes, the leader SIGKILLed: the other takes over within the lease's
//     bounds, and the two never write at once (audit log, told apart by user agent);
//   - conflicts: a managed object edited by someone else while the operator repairs it;
//   - hostile objects: an object of a managed name without the operator's label;
//   - uninstalling deploy/ at the end; users' LeaderWorkerSets, Secrets and PVCs counted
//     throughout.
//
// It writes the suite's result (test/reliability/result) as <-out>/faults.json. The cluster is
// $KUBECONFIG's (the local cluster's admin), with deploy/ installed (hack/lib/operator.sh
// install); the operator is started and stopped through hack/lib/operator.sh, with the
// environment hack/test-reliability.sh gives (LOCAL_CLUSTER_INSTANCE, OPERATOR_*).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
	"github.com/llm-infra/llm-infra-operator/test/reliability/result"
)

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[faults %s] %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

// settings are the knobs of a run (flags).
type settings struct {
	out          string
	root         string
	killPoints   int
	operandNames string
	timeout      time.Duration
	quiet        time.Duration
	leaseSeconds int
	phaseNames   map[string]bool
	skip         map[string]bool
}

type suite struct {
	settings
	namespace string // the operator's
	user      string // the operator's ServiceAccount user
	admin     *rest.Config
	kube      kubernetes.Interface
	dyn       dynamic.Interface
	audit     *live.AuditLog
	auditPath string
	operator  *live.Operator // the one started and killed
	// patient is the same process with library-go's lease timings, which outlast an API
	// server restart (the short ones make the operator give up leading, and exit, when the
	// API server is away for longer than its renew deadline).
	patient *live.Operator
	second  *live.Operator // the leader-election scenario's other process
	proc    *live.Proc
	logs    []string // every operator log, for the secrets check

	operands []*operand
	users    []userObject
	secrets  []string // the seeded values

	res    result.Suite
	faults int
	conv   int
	times  []float64
	leaked int
	lost   int
}

func main() {
	var s settings
	var skip string
	flag.StringVar(&s.out, "out", "", "directory to write faults.json into (required)")
	flag.StringVar(&s.root, "root", ".", "the repository (hack/lib/operator.sh, deploy/, examples)")
	flag.IntVar(&s.killPoints, "kill-points", 20, "SIGKILLs spread over each convergence, removal and deletion")
	flag.StringVar(&s.operandNames, "operands", "all", "operands of the kill points, comma-separated (all: every row of the table, which covers every registered kind)")
	flag.DurationVar(&s.timeout, "timeout", 3*time.Minute, "how long a convergence may take after a fault")
	flag.DurationVar(&s.quiet, "quiet", 20*time.Second, "window in which a converged operator must make no write")
	flag.IntVar(&s.leaseSeconds, "lease-seconds", 10, "the operator's leader lease duration (renew deadline 70%, retry period 20%)")
	var phases string
	flag.StringVar(&phases, "phases", "convergence,removal,deletion", "phases the kill points are spread over, comma-separated")
	flag.StringVar(&skip, "skip", "", "scenarios to skip, comma-separated: kill, apiserver, leader, conflict, hostile, uninstall")
	flag.Parse()
	if s.out == "" {
		fmt.Fprintln(os.Stderr, "-out is required")
		os.Exit(2)
	}
	s.phaseNames = map[string]bool{}
	for _, p := range splitList(phases) {
		s.phaseNames[p] = true
	}
	s.skip = map[string]bool{}
	for _, k := range strings.Split(skip, ",") {
		if k != "" {
			s.skip[k] = true
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	st, err := newSuite(s)
	if err != nil {
		logf("FAILED: %v", err)
		os.Exit(1)
	}
	st.run(ctx)
	if err := st.res.Write(s.out); err != nil {
		logf("FAILED: write the result: %v", err)
		os.Exit(1)
	}
	logf("result: %s", filepath.Join(s.out, "faults.json"))
	for _, f := range st.res.Failures {
		logf("FAILURE: %s", f)
	}
	if !st.res.Passed {
		os.Exit(1)
	}
}

func newSuite(s settings) (*suite, error) {
	root, err := filepath.Abs(s.root)
	if err != nil {
		return nil, err
	}
	s.root = root
	kubeconfig := os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		return nil, fmt.Errorf("KUBECONFIG is not set (the local cluster's admin kubeconfig)")
	}
	admin, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	admin.QPS, admin.Burst = 200, 400
	admin.WarningHandler = rest.NoWarnings{}
	st := &suite{settings: s, admin: admin, res: result.Suite{Name: "faults", Passed: true}}
	st.namespace = envOr("OPERATOR_NAMESPACE", "openshift-llm-infra-operator")
	st.user = "system:serviceaccount:" + st.namespace + ":llm-infra-operator"
	if st.kube, err = kubernetes.NewForConfig(admin); err != nil {
		return nil, err
	}
	if st.dyn, err = dynamic.NewForConfig(admin); err != nil {
		return nil, err
	}
	clusterDir := os.Getenv("LOCAL_CLUSTER_DIR")
	if clusterDir == "" {
		return nil, fmt.Errorf("LOCAL_CLUSTER_DIR is not set (hack/test-reliability.sh sets it)")
	}
	st.auditPath = filepath.Join(clusterDir, "logs", "audit.log")
	if st.audit, err = live.NewAuditLog(st.auditPath); err != nil {
		return nil, fmt.Errorf("the audit log: %w", err)
	}
	lease := time.Duration(s.leaseSeconds) * time.Second
	leaseArgs := fmt.Sprintf("--leader-elect-lease-duration=%s --leader-elect-renew-deadline=%s --leader-elect-retry-period=%s",
		lease, lease*7/10, lease/5)
	binary := envOr("OPERATOR_BINARY", filepath.Join(root, "_output", "bin", "llm-infra-operator"))
	listen := envOr("OPERATOR_LISTEN", "127.0.0.1:31543")
	logDir := filepath.Join(clusterDir, "logs")
	mk := func(binary, listen, log, pidfile string) *live.Operator {
		st.logs = append(st.logs, log)
		return &live.Operator{Root: root, Listen: listen, Log: log, Env: []string{
			"OPERATOR_STOP_TIMEOUT=60",
			"OPERATOR_BINARY=" + binary,
			"OPERATOR_SKIP_BUILD=true",
			"OPERATOR_LISTEN=" + listen,
			"OPERATOR_LOG=" + log,
			"OPERATOR_PIDFILE=" + pidfile,
			"OPERATOR_ARGS=" + strings.TrimSpace(os.Getenv("OPERATOR_ARGS")+" "+leaseArgs),
		}}
	}
	st.operator = mk(binary, listen, filepath.Join(logDir, "operator.log"), filepath.Join(clusterDir, "pids", "llm-infra-operator.pid"))
	st.patient = &live.Operator{Root: root, Listen: listen, Log: st.operator.Log,
		Env: append(append([]string(nil), st.operator.Env[:len(st.operator.Env)-1]...), "OPERATOR_ARGS="+os.Getenv("OPERATOR_ARGS"))}
	// The second process runs a copy of the binary under another name: client-go's user agent
	// is the binary's name, so the audit log tells the two processes' requests apart.
	host, port, _ := strings.Cut(listen, ":")
	var p int
	fmt.Sscanf(port, "%d", &p)
	st.second = mk(binary+"-second", fmt.Sprintf("%s:%d", host, p+1), filepath.Join(logDir, "operator-second.log"),
		filepath.Join(clusterDir, "pids", "llm-infra-operator-second.pid"))
	return st, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// run runs every scenario in order; a scenario that cannot go on records a failure, and the
// later ones still run where they can.
func (s *suite) run(ctx context.Context) {
	started := time.Now()
	defer func() {
		_ = s.operator.Stop()
		_ = s.second.Stop()
	}()
	step := func(name string, f func(context.Context) error) {
		if ctx.Err() != nil || s.skip[name] {
			return
		}
		logf("=== %s", name)
		t0 := time.Now()
		if err := f(ctx); err != nil {
			s.res.Fail("%s: %v", name, err)
			logf("%s FAILED: %v", name, err)
		}
		logf("=== %s done in %s", name, time.Since(t0).Round(time.Second))
	}
	step("setup", s.setup)
	if !s.res.Passed {
		s.finish(started)
		return
	}
	step("kill", s.scenarioKill)
	step("apiserver", s.scenarioAPIServer)
	step("conflict", s.scenarioConflict)
	step("leader", s.scenarioLeader)
	step("hostile", s.scenarioHostile)
	step("secrets", s.checkSecrets)
	step("uninstall", s.scenarioUninstall)
	s.finish(started)
}

func (s *suite) finish(started time.Time) {
	mean, worst := 0.0, 0.0
	for _, t := range s.times {
		mean += t
		if t > worst {
			worst = t
		}
	}
	if len(s.times) > 0 {
		mean /= float64(len(s.times))
	}
	s.res.Add("faults injected", float64(s.faults), "")
	s.res.Add("converged", float64(s.conv), "")
	s.res.Add("mean time to converge after the fault", mean, "s")
	s.res.Add("worst time to converge after the fault", worst, "s")
	s.res.Add("objects leaked", float64(s.leaked), "")
	s.res.Add("user objects lost", float64(s.lost), "")
	s.res.Add("duration", time.Since(started).Seconds(), "s")
	if s.conv != s.faults {
		s.res.Fail("%d of %d faults did not converge", s.faults-s.conv, s.faults)
	}
}
