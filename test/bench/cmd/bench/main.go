// Command bench measures llm-infra-operator against a live cluster: convergence, writes on a
// quiet resync, drift repair, footprint, start-up, the LLM batch gateway at scale, and the inference
// gateway at scale next to it. `make
// bench` (hack/bench.sh) brings up the local cluster and runs it; see hack/bench.sh for the
// environment it reads.
//
// The operator runs as a local process this program starts and stops through
// hack/lib/operator.sh (so its pid, /proc figures and restarts are in hand), authenticated as
// its own ServiceAccount, so the apiserver's audit log tells its requests apart from everyone
// else's: every count of writes and requests comes from that log (user
// system:serviceaccount:<namespace>:<serviceaccount>). Syncs come from the operator's own
// metrics (metrics.go): a sync that changes nothing sends no request at all.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// defaultScenarios are the scenarios BENCH_SCENARIOS selects when unset: all but 8 (thousands of
// CRs: make bench-scale) and the anchors (make bench-anchors).
const defaultScenarios = "1,2,3,4,5,6,7,9"

type bench struct {
	root           string
	namespace      string
	serviceAccount string
	user           string
	listen         string
	operandImage   string
	operatorBinary string
	operatorLog    string
	saKubeconfig   string
	workDir        string
	outDir         string

	admin *rest.Config
	kube  kubernetes.Interface
	dyn   dynamic.Interface
	audit *live.AuditLog
	op    *live.Proc
	res   *report.Result

	objects []objRef

	runs        int
	touches     int
	quiet       time.Duration
	loadNS      int
	loadObjects int
	loadConc    int
	scenarios   map[string]bool
	cleanupCR   bool

	scaleCRs     int
	scaleNS      int
	scaleSecrets int
	scaleQuiet   time.Duration
	gatewayCRs   int
	agentCRs     int

	// Scenario 8's steps (BENCH_SCALE_BASE, BENCH_SCALE) and every scale scenario's wait for
	// convergence (BENCH_CONVERGE_MINUTES, BENCH_CONVERGE_SECONDS_PER_CR).
	platformBase, platformScale int
	convergeMinutes             int
	convergePerCR               float64
	// cpuProfileSeconds, when above 0, has bench-anchors take a CPU profile of this operator
	// over that many seconds from the creation of each scale workload's CRs
	// (BENCH_CPU_PROFILE_SECONDS).
	cpuProfileSeconds int
}

var titles = map[string]string{
	"1-convergence": "1. Convergence: CR created -> operand applied -> Available (cert-manager running)",
	"2-quiet":       "2. Quiet resync: forced syncs with nothing changed; requests at idle",
	"3-drift":       "3. Drift repair: time from edit/delete to restored, per kind",
	"4-footprint":   "4. Footprint: operator process RSS and CPU, before and after unrelated objects",
	"5-startup":     "5. Start-up: restart with nothing changed",
	scBatchScale:    "6. LLM batch gateway at scale: many LLMBatchGateways (LWS managed too)",
	scGatewayScale:  "7. Inference gateway at scale: many Gateways next to as many LLMBatchGateways (LWS managed too)",
	scAgentScale:    "9. Agents at scale: many Agents (LWS managed too)",
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[bench %s] %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		logf("ignoring %s=%q: not a non-negative integer", name, v)
		return def
	}
	return n
}

func envFloat(name string, def float64) float64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		logf("ignoring %s=%q: not a non-negative number", name, v)
		return def
	}
	return f
}

func git(root string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func main() {
	if err := run(); err != nil {
		logf("FAILED: %v", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if top := git(root, "rev-parse", "--show-toplevel"); top != "" {
		root = top
	}
	operandRef, _ := os.ReadFile(filepath.Join(root, "operand-git-ref"))
	b := &bench{
		root:           root,
		namespace:      envOr("BENCH_NAMESPACE", "openshift-llm-infra-operator"),
		serviceAccount: "llm-infra-operator",
		listen:         envOr("OPERATOR_LISTEN", envOr("BENCH_OPERATOR_LISTEN", "127.0.0.1:28443")),
		operandImage:   envOr("OPERAND_IMAGE", "registry.k8s.io/lws/lws:"+strings.TrimSpace(string(operandRef))),
		operatorBinary: envOr("OPERATOR_BINARY", filepath.Join(root, "_output", "bench", "bin", "llm-infra-operator")),
		workDir:        envOr("BENCH_WORK_DIR", filepath.Join(root, "_output", "bench", "work")),
		runs:           envInt("BENCH_RUNS", 3),
		touches:        envInt("BENCH_TOUCHES", 20),
		quiet:          time.Duration(envInt("BENCH_QUIET_SECONDS", 60)) * time.Second,
		loadNS:         envInt("BENCH_LOAD_NAMESPACES", 10),
		loadObjects:    envInt("BENCH_LOAD_OBJECTS", 5000),
		loadConc:       envInt("BENCH_LOAD_CONCURRENCY", 8),
		scenarios:      map[string]bool{},
		cleanupCR:      os.Getenv("BENCH_CLEANUP_CR") == "1",
		scaleCRs:       envInt("BENCH_SCALE_CRS", 200),
		scaleNS:        envInt("BENCH_SCALE_NAMESPACES", 20),
		scaleSecrets:   envInt("BENCH_SCALE_SECRETS", 5000),
		scaleQuiet:     time.Duration(envInt("BENCH_SCALE_QUIET_SECONDS", 30)) * time.Second,
		gatewayCRs:     envInt("BENCH_GATEWAY_CRS", 200),
		agentCRs:       envInt("BENCH_AGENT_CRS", 200),

		platformBase:    envInt("BENCH_SCALE_BASE", 200),
		platformScale:   envInt("BENCH_SCALE", 1000),
		convergeMinutes: envInt("BENCH_CONVERGE_MINUTES", 20),
		convergePerCR:   envFloat("BENCH_CONVERGE_SECONDS_PER_CR", 1.2),

		cpuProfileSeconds: envInt("BENCH_CPU_PROFILE_SECONDS", 0),
	}
	if b.runs < 1 {
		b.runs = 1
	}
	if b.loadConc < 1 {
		b.loadConc = 1
	}
	if b.scaleNS < 1 {
		b.scaleNS = 1
	}
	for _, s := range strings.Split(envOr("BENCH_SCENARIOS", defaultScenarios), ",") {
		b.scenarios[strings.TrimSpace(s)] = true
	}
	b.user = "system:serviceaccount:" + b.namespace + ":" + b.serviceAccount
	outDir := envOr("BENCH_OUTPUT_DIR", filepath.Join(root, "_output", "bench"))
	b.outDir = outDir
	if err := os.MkdirAll(b.workDir, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	b.operatorLog = envOr("OPERATOR_LOG", filepath.Join(b.workDir, "operator.log"))
	b.saKubeconfig = envOr("OPERATOR_KUBECONFIG", filepath.Join(b.workDir, "operator-sa.kubeconfig"))

	kubeconfig := os.Getenv("KUBECONFIG")
	if kubeconfig == "" {
		return fmt.Errorf("KUBECONFIG must name the cluster admin's kubeconfig")
	}
	admin, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	// The bench's own requests must not be throttled client-side (the load step creates
	// thousands of objects); they are the admin's, and never counted as the operator's.
	admin.QPS, admin.Burst = 500, 1000
	b.admin = admin
	if b.kube, err = kubernetes.NewForConfig(admin); err != nil {
		return err
	}
	if b.dyn, err = dynamic.NewForConfig(admin); err != nil {
		return err
	}
	auditPath := os.Getenv("BENCH_AUDIT_LOG")
	if b.audit, err = live.NewAuditLog(auditPath); err != nil {
		return fmt.Errorf("audit log %s: %w", auditPath, err)
	}
	if b.audit == nil {
		logf("BENCH_AUDIT_LOG is not set: request and write counts are skipped, times are measured by polling")
	}

	commit := git(root, "rev-parse", "HEAD")
	if commit == "" {
		commit = "unknown"
	}
	b.res = &report.Result{
		Schema:    report.SchemaVersion,
		Commit:    commit,
		Dirty:     git(root, "status", "--porcelain", "--untracked-files=no") != "",
		Started:   time.Now().UTC(),
		Runs:      b.runs,
		Cluster:   envOr("BENCH_CLUSTER", admin.Host),
		GoVersion: runtime.Version(),
		CPUs:      runtime.NumCPU(),
		Settings: map[string]string{
			"BENCH_RUNS":                    strconv.Itoa(b.runs),
			"BENCH_TOUCHES":                 strconv.Itoa(b.touches),
			"BENCH_QUIET_SECONDS":           strconv.Itoa(int(b.quiet.Seconds())),
			"BENCH_LOAD_NAMESPACES":         strconv.Itoa(b.loadNS),
			"BENCH_LOAD_OBJECTS":            strconv.Itoa(b.loadObjects),
			"BENCH_LOAD_CONCURRENCY":        strconv.Itoa(b.loadConc),
			"BENCH_SCENARIOS":               envOr("BENCH_SCENARIOS", defaultScenarios),
			"BENCH_SCALE_CRS":               strconv.Itoa(b.scaleCRs),
			"BENCH_SCALE_NAMESPACES":        strconv.Itoa(b.scaleNS),
			"BENCH_SCALE_SECRETS":           strconv.Itoa(b.scaleSecrets),
			"BENCH_SCALE_QUIET_SECONDS":     strconv.Itoa(int(b.scaleQuiet.Seconds())),
			"BENCH_GATEWAY_CRS":             strconv.Itoa(b.gatewayCRs),
			"BENCH_AGENT_CRS":               strconv.Itoa(b.agentCRs),
			"BENCH_SCALE_BASE":              strconv.Itoa(b.platformBase),
			"BENCH_SCALE":                   strconv.Itoa(b.platformScale),
			"BENCH_CONVERGE_MINUTES":        strconv.Itoa(b.convergeMinutes),
			"BENCH_CONVERGE_SECONDS_PER_CR": strconv.FormatFloat(b.convergePerCR, 'g', -1, 64),
			"BENCH_CPU_PROFILE_SECONDS":     strconv.Itoa(b.cpuProfileSeconds),
			"OPERAND_IMAGE":                 b.operandImage,
			"audit log":                     auditPath,
		},
		Details: map[string]any{},
	}

	defer func() { b.stopOperator() }()
	if err := b.setup(ctx); err != nil {
		return err
	}
	steps := []struct {
		id  string
		run func(context.Context) error
	}{
		{"1", b.scenarioConvergence},
		{"2", b.scenarioQuietResync},
		{"3", b.scenarioDrift},
		{"5", b.scenarioStartup},
		// After 1-3 and 5: it shares the quiet minute with scenario 2, and its load leaves the
		// cluster busy.
		{"4", b.scenarioFootprint},
		// Last and longest: hundreds of CRs and pods, removed at their end.
		{"6", b.scenarioBatchScale},
		{"7", b.scenarioGatewayScale},
		{"9", b.scenarioAgentScale},
		// Not in the default set: thousands of CRs (make bench-scale).
		{"8", b.scenarioPlatformScale},
		// make bench-anchors: the upstream operators side by side with this one.
		{anchorsScenario, b.scenarioAnchors},
	}
	var failures []string
	for _, s := range steps {
		if ctx.Err() != nil {
			break
		}
		if !b.scenarios[s.id] && !(s.id == "4" && b.scenarios["2"]) {
			continue
		}
		if err := s.run(ctx); err != nil {
			logf("scenario %s FAILED: %v", s.id, err)
			failures = append(failures, fmt.Sprintf("scenario %s failed: %v", s.id, err))
			b.res.Findings = append(b.res.Findings, fmt.Sprintf("scenario %s did not complete: %v", s.id, err))
			if !b.op.Running() {
				break
			}
		}
	}
	if b.cleanupCR && ctx.Err() == nil {
		logf("deleting the CR (BENCH_CLEANUP_CR=1)")
		if err := b.deleteCRAndWait(ctx, b.objects, 2*time.Minute); err != nil {
			logf("cleanup: %v", err)
		}
	}
	b.stopOperator()

	b.res.Finished = time.Now().UTC()
	short := commit
	if len(short) > 12 {
		short = short[:12]
	}
	if b.res.Dirty {
		short += "-dirty"
	}
	out := filepath.Join(outDir, fmt.Sprintf("bench-%s-%s.json", short, b.res.Started.Format("20060102T150405Z")))
	if err := b.res.Save(out); err != nil {
		return err
	}
	var table strings.Builder
	fmt.Fprintf(&table, "llm-infra-operator bench: commit %s, %d runs, %d CPUs, %s, cluster %s, took %s\n", short, b.runs, b.res.CPUs,
		b.res.GoVersion, b.res.Cluster, b.res.Finished.Sub(b.res.Started).Round(time.Second))
	b.res.PrintTable(&table, titles)
	txt := strings.TrimSuffix(out, ".json") + ".txt"
	if err := os.WriteFile(txt, []byte(table.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("\n%s\nJSON:  %s\ntable: %s\n", table.String(), out, txt)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(failures) > 0 {
		return fmt.Errorf("%s", strings.Join(failures, "; "))
	}
	return nil
}

// setup installs deploy/, writes the ServiceAccount kubeconfig, starts the operator and makes
// sure no CR is left from an earlier run.
func (b *bench) setup(ctx context.Context) error {
	logf("installing deploy/ (CRD first, all but 10_*)")
	if err := b.installDeploy(ctx); err != nil {
		return err
	}
	if err := b.writeSAKubeconfig(ctx, b.admin); err != nil {
		return err
	}
	if err := b.waitCRDEstablished(ctx, "certificates.cert-manager.io", 5*time.Second); err != nil {
		return fmt.Errorf("cert-manager's CRDs are not installed (the scenarios need cert-manager running): %w", err)
	}
	if _, err := os.Stat(b.operatorBinary); err != nil {
		return fmt.Errorf("operator binary: %w (hack/bench.sh builds it)", err)
	}
	p, err := b.startOperator()
	if err != nil {
		return err
	}
	b.op = p
	logf("operator started (pid %d, log %s)", p.Pid, b.operatorLog)
	if _, err := b.operator().WaitHealthy(ctx, p, 2*time.Minute); err != nil {
		return err
	}
	if b.objects, err = b.operandObjects(ctx); err != nil {
		return err
	}
	if _, err := b.getCR(ctx); err == nil {
		logf("a CR %q exists from before: deleting it first", crName)
		if err := b.deleteCRAndWait(ctx, b.objects, 3*time.Minute); err != nil {
			return err
		}
	}
	return nil
}
