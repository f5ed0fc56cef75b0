package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/test/bench/internal/report"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// make bench-anchors: the upstream operators this project replaces (hack/bench/anchors.tsv,
// built by hack/bench-anchors.sh into BENCH_ANCHORS_DIR), each run as a local process against
// the bench cluster, then this operator, on the same workload: LWS `cluster`; N
// LLMBatchGateways; N Gateways. Each side runs alone (the other stopped) with its own CRDs
// installed, as its own ServiceAccount, so the audit log tells its requests apart; memory and
// CPU come from /proc. The result is one table, measure by measure, with ours/anchor.

// anchorsScenario selects the anchors in BENCH_SCENARIOS.
const anchorsScenario = "anchors"

// anchorNamespace holds the anchors' ServiceAccounts.
const anchorNamespace = "bench-anchors"

// anchor is one upstream operator and how to run it as a local process.
type anchor struct {
	// name is its pin in hack/bench/anchors.tsv: its binary is bin/<name>, its tree src/<name>.
	name string
	// port is its loopback port's distance from the operator's (OPERATOR_LISTEN): a different
	// instance or offset never uses it (hack/lib/instance.sh: base ports differ by
	// non-multiples of ten).
	port int
	// crds are its CRD files, relative to its tree.
	crds []string
	// optionalAPIs are sets of hack/optional-crds.sh the anchor cannot start or converge
	// without. They are installed before the workload's anchor side and stay for this
	// operator's side of the same workload, so both sides render and watch the same APIs (this
	// operator uses them when their CRDs exist: a ServiceMonitor for LWS, informers on the
	// Gateway API kinds); they are uninstalled after the workload, so that the next workload
	// starts from the cluster without them.
	optionalAPIs []string
	// operandNamespace is a namespace the anchor expects to exist (its own), if any.
	operandNamespace string
	// args and env of the process; dir is BENCH_ANCHORS_DIR, port a free loopback port.
	args func(dir, kubeconfig string, port int) []string
	env  func(dir, kubeconfig string) []string
	// clusterScoped names the cluster-scoped objects it leaves behind when its CR is deleted
	// (they carry the same names as this operator's, which never takes over an object it does
	// not own): deleted before this operator's side runs.
	clusterScoped func(dir string) ([]objRef, error)
}

var anchorsByKind = map[string]*anchor{
	"lws": {
		name:             "anchor-lws-operator",
		port:             1,
		crds:             []string{"deploy/00_lws-operator.crd.yaml"},
		operandNamespace: "openshift-lws-operator",
		// Its TargetConfigController applies a ServiceMonitor before the operand's Deployment
		// and stops at the first error: without the CRD it is Degraded (SyncError, event
		// ServiceMonitorCreateFailed) and never creates the Deployment, so `cluster` never
		// becomes Available.
		optionalAPIs: []string{"monitoring-core"},
		args: func(_, kubeconfig string, port int) []string {
			return []string{"operator", "--kubeconfig", kubeconfig, "--namespace", "openshift-lws-operator",
				"--listen", fmt.Sprintf("127.0.0.1:%d", port)}
		},
		env: func(string, string) []string {
			return []string{"OPERATOR_NAME=openshift-lws-operator", "POD_NAME=bench-anchor-lws",
				"RELATED_IMAGE_OPERAND_IMAGE=" + envOr("OPERAND_IMAGE", "registry.k8s.io/lws/lws:bench")}
		},
		clusterScoped: lwsAnchorClusterScoped,
	},
	"batch": {
		name: "anchor-batch-gateway-operator",
		port: 2,
		crds: []string{"config/crd/bases/batch.llm-d.ai_llmbatchgateways.yaml"},
		args: func(dir, _ string, port int) []string {
			return []string{
				"--batch-gateway-chart-path", filepath.Join(dir, "src", "batch-gateway", "charts", "batch-gateway"),
				"--async-chart-path", filepath.Join(dir, "src", "llm-d-async", "charts", "async-processor"),
				"--metrics-bind-address", "0", "--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", port),
			}
		},
		env: func(_, kubeconfig string) []string {
			// Images are names only: kwok runs no container.
			return []string{"KUBECONFIG=" + kubeconfig,
				"LLM_D_BATCH_GATEWAY_APISERVER_IMAGE=bench/batch-gateway-apiserver:anchor",
				"LLM_D_BATCH_GATEWAY_PROCESSOR_IMAGE=bench/batch-gateway-processor:anchor",
				"LLM_D_BATCH_GATEWAY_GC_IMAGE=bench/batch-gateway-gc:anchor",
				"LLM_D_ASYNC_IMAGE=bench/async-processor:anchor"}
		},
	},
	"gateway": {
		name: "anchor-inference-gateway-operator",
		port: 3,
		crds: []string{"config/crd/bases/core.inference-gateway.com_gateways.yaml", "config/crd/bases/core.inference-gateway.com_mcps.yaml",
			"config/crd/bases/core.inference-gateway.com_agents.yaml", "config/crd/bases/core.inference-gateway.com_orchestrators.yaml",
			"config/crd/bases/core.inference-gateway.com_gpus.yaml"},
		// Its manager waits for an HTTPRoute informer and exits when the CRD is missing
		// ("timed out waiting for cache to be synced for kind source: *v1.HTTPRoute").
		optionalAPIs: []string{"gateway-api"},
		args: func(_, _ string, port int) []string {
			return []string{"--metrics-bind-address", "0", "--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", port)}
		},
		env: func(_, kubeconfig string) []string { return []string{"KUBECONFIG=" + kubeconfig} },
	},
}

// lwsAnchorClusterScoped names the lws-operator's cluster-scoped operand objects from its
// bindata file names (<group>_<version>_<kind>_<name>.yaml).
func lwsAnchorClusterScoped(dir string) ([]objRef, error) {
	files, err := filepath.Glob(filepath.Join(dir, "src", "anchor-lws-operator", "bindata", "assets", "lws-controller-generated", "*.yaml"))
	if err != nil {
		return nil, err
	}
	kinds := map[string]schema.GroupVersionResource{
		"customresourcedefinition":       crdGVR,
		"clusterrole":                    {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		"clusterrolebinding":             {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
		"mutatingwebhookconfiguration":   {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
		"validatingwebhookconfiguration": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
	}
	var out []objRef
	for _, f := range files {
		parts := strings.SplitN(strings.TrimSuffix(filepath.Base(f), ".yaml"), "_", 4)
		if len(parts) != 4 {
			continue
		}
		if gvr, ok := kinds[parts[2]]; ok {
			out = append(out, objRef{gvr: gvr, kind: parts[2], name: parts[3]})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no cluster-scoped objects named in %s", dir)
	}
	return out, nil
}

// anchorWorkload is one workload: a kind and, but for lws, a number of CRs.
type anchorWorkload struct {
	kind string
	n    int
}

func (w anchorWorkload) id() string {
	if w.kind == "lws" {
		return "lws"
	}
	return fmt.Sprintf("%s-%d", w.kind, w.n)
}

// anchorWorkloads are the workloads of BENCH_ANCHOR_KINDS [lws,batch,gateway] with the sizes
// BENCH_ANCHOR_BATCH_SIZES [100,500] and BENCH_ANCHOR_GATEWAY_SIZES [100,500].
func anchorWorkloads(kinds, batchSizes, gatewaySizes string) ([]anchorWorkload, error) {
	var out []anchorWorkload
	sizes := func(list string) ([]int, error) {
		var ns []int
		for _, f := range strings.Split(list, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("size %q is not a positive integer", f)
			}
			ns = append(ns, n)
		}
		return ns, nil
	}
	for _, k := range strings.Split(kinds, ",") {
		switch k = strings.TrimSpace(k); k {
		case "lws":
			out = append(out, anchorWorkload{kind: "lws"})
		case "batch", "gateway":
			list := batchSizes
			if k == "gateway" {
				list = gatewaySizes
			}
			ns, err := sizes(list)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			for _, n := range ns {
				out = append(out, anchorWorkload{kind: k, n: n})
			}
		case "":
		default:
			return nil, fmt.Errorf("unknown anchor kind %q (lws, batch, gateway)", k)
		}
	}
	return out, nil
}

// anchorSide is one side of a workload while it runs: its user, process and figures.
type anchorSide struct {
	label    string // "anchor" or "ours"
	workload string // its id ("lws", "gateway-500")
	user     string
	proc     *live.Proc
	figures  map[string]float64
}

// scenarioAnchors runs every workload on each anchor, then on this operator.
func (b *bench) scenarioAnchors(ctx context.Context) error {
	dir := os.Getenv("BENCH_ANCHORS_DIR")
	if dir == "" {
		return fmt.Errorf("BENCH_ANCHORS_DIR is not set (hack/bench-anchors.sh builds the anchors and sets it)")
	}
	workloads, err := anchorWorkloads(envOr("BENCH_ANCHOR_KINDS", "lws,batch,gateway"),
		envOr("BENCH_ANCHOR_BATCH_SIZES", "100,500"), envOr("BENCH_ANCHOR_GATEWAY_SIZES", "100,500"))
	if err != nil {
		return err
	}
	quiet := time.Duration(envInt("BENCH_ANCHOR_QUIET_SECONDS", 60)) * time.Second
	table := &report.AnchorTable{Commit: b.res.Commit, Started: time.Now().UTC(), Anchors: map[string]string{},
		Settings: map[string]string{
			"BENCH_ANCHOR_KINDS": envOr("BENCH_ANCHOR_KINDS", "lws,batch,gateway"), "BENCH_ANCHOR_BATCH_SIZES": envOr("BENCH_ANCHOR_BATCH_SIZES", "100,500"),
			"BENCH_ANCHOR_GATEWAY_SIZES": envOr("BENCH_ANCHOR_GATEWAY_SIZES", "100,500"), "BENCH_ANCHOR_QUIET_SECONDS": strconv.Itoa(int(quiet.Seconds())),
		}}
	for _, a := range anchorsByKind {
		if raw, err := os.ReadFile(filepath.Join(dir, "src", a.name+".commit")); err == nil {
			table.Anchors[a.name] = strings.TrimSpace(string(raw))
		}
	}
	// This operator stays stopped while an anchor runs: both would reconcile the same CRs.
	b.stopOperator()
	if err := b.anchorAccounts(ctx, dir); err != nil {
		return err
	}
	for _, w := range workloads {
		if ctx.Err() != nil {
			break
		}
		a := anchorsByKind[w.kind]
		sc := "A-" + w.id()
		titles[sc] = fmt.Sprintf("Anchors: %s on %s, then this operator", w.id(), a.name)
		if len(a.optionalAPIs) > 0 {
			if err := b.optionalAPIs(ctx, "install", a.optionalAPIs); err != nil {
				msg := fmt.Sprintf("%s: install the optional APIs %v %s needs: %v (workload skipped)", w.id(), a.optionalAPIs, a.name, err)
				logf("anchors: %s", msg)
				table.Failures = append(table.Failures, msg)
				continue
			}
			table.Settings["optional APIs of "+w.id()] = strings.Join(a.optionalAPIs, ",") + " (installed for both sides)"
		}
		sides := map[string]*anchorSide{}
		for _, label := range []string{"anchor", "ours"} {
			logf("anchors: %s, %s", w.id(), label)
			side, err := b.runAnchorSide(ctx, dir, a, w, label, quiet)
			sides[label] = side
			if err != nil {
				msg := fmt.Sprintf("%s on %s: %v", w.id(), map[string]string{"anchor": a.name, "ours": "this operator"}[label], err)
				logf("anchors: %s", msg)
				table.Failures = append(table.Failures, msg)
				b.res.Findings = append(b.res.Findings, "anchors: "+msg)
			}
		}
		for _, m := range report.AnchorMeasures {
			var anchor, ours *float64
			if v, ok := sides["anchor"].figures[m]; ok {
				anchor = &v
				b.res.Add(sc, m+": anchor", "", "", "", v)
			}
			if v, ok := sides["ours"].figures[m]; ok {
				ours = &v
				b.res.Add(sc, m+": ours", "", "", "lower", v)
			}
			row := report.NewAnchorRow(w.id(), m, anchor, ours)
			if row.Ratio != nil {
				b.res.Add(sc, m+": ours/anchor", "ratio", "", "lower", *row.Ratio)
			}
			if row.Anchor != nil || row.Ours != nil {
				table.Rows = append(table.Rows, row)
			}
		}
		if len(a.optionalAPIs) > 0 {
			if err := b.optionalAPIs(ctx, "uninstall", a.optionalAPIs); err != nil {
				msg := fmt.Sprintf("%s: uninstall the optional APIs %v: %v", w.id(), a.optionalAPIs, err)
				logf("anchors: %s", msg)
				table.Failures = append(table.Failures, msg)
			}
		}
	}
	// The table first: an interrupted run keeps what it measured.
	if err := b.saveAnchorTable(table); err != nil {
		return err
	}
	// This operator runs again for whatever follows.
	if ctx.Err() == nil && (b.op == nil || !b.op.Running()) {
		return b.restartOperator(ctx)
	}
	return nil
}

// anchorAccounts creates the anchors' ServiceAccounts, each bound to cluster-admin (their own
// RBAC comes with their kustomize or OLM bundles, not installed here; counts are by user, so
// broader rights change no figure), and writes their kubeconfigs.
func (b *bench) anchorAccounts(ctx context.Context, dir string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: anchorNamespace}}
	if _, err := b.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	for _, a := range anchorsByKind {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: a.name, Namespace: anchorNamespace}}
		if _, err := b.kube.CoreV1().ServiceAccounts(anchorNamespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		crb := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "bench-" + a.name},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: a.name, Namespace: anchorNamespace}},
		}
		if _, err := b.kube.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		if err := b.writeKubeconfigOf(ctx, b.admin, anchorNamespace, a.name, filepath.Join(b.workDir, a.name+".kubeconfig")); err != nil {
			return err
		}
		if a.operandNamespace != "" {
			ons := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.operandNamespace}}
			if _, err := b.kube.CoreV1().Namespaces().Create(ctx, ons, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return err
			}
		}
	}
	return nil
}

// installCRDs applies CRD files (replacing the other side's CRDs of the same names) and waits
// until each is Established.
func (b *bench) installCRDs(ctx context.Context, files []string) error {
	for _, f := range files {
		objs, err := readManifests(f, nil)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if obj.GetKind() != "CustomResourceDefinition" {
				continue
			}
			if err := b.applyObject(ctx, obj); err != nil {
				return err
			}
			if err := b.waitCRDEstablished(ctx, obj.GetName(), time.Minute); err != nil {
				return err
			}
		}
	}
	return nil
}

// optionalAPIs runs hack/optional-crds.sh install or uninstall on sets (it waits until they
// are served, or gone).
func (b *bench) optionalAPIs(ctx context.Context, verb string, sets []string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(b.root, "hack", "optional-crds.sh"), append([]string{verb}, sets...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	logf("  optional APIs %v: %sed", sets, verb)
	return nil
}

// ourCRDs are deploy/'s CRD files.
func (b *bench) ourCRDs() []string {
	files, _ := filepath.Glob(filepath.Join(b.root, "deploy", "00_*.crd.yaml"))
	return files
}

// startAnchor runs an anchor's binary as a local process in its own process group, its output
// in the work directory.
func (b *bench) startAnchor(dir string, a *anchor) (*live.Proc, func(), error) {
	kubeconfig := filepath.Join(b.workDir, a.name+".kubeconfig")
	port := 0
	if i := strings.LastIndex(b.listen, ":"); i >= 0 {
		port, _ = strconv.Atoi(b.listen[i+1:])
	}
	port += a.port
	logPath := filepath.Join(b.workDir, a.name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(filepath.Join(dir, "bin", a.name), a.args(dir, kubeconfig, port)...)
	cmd.Env = append(os.Environ(), a.env(dir, kubeconfig)...)
	cmd.Dir = b.workDir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logFile.Close(); close(exited) }()
	ticks, started, _ := live.ProcessStart(cmd.Process.Pid)
	p := &live.Proc{Pid: cmd.Process.Pid, Ticks: ticks, Started: started}
	// A pid file of hack/lib/proc.sh's format, so that hack/bench.sh's exit hook stops the
	// anchor should this program die without its deferred stop.
	pidFile := filepath.Join(b.workDir, a.name+".pid")
	if boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		exe, _ := filepath.Abs(filepath.Join(dir, "bin", a.name))
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		line := fmt.Sprintf("%d %d %s exec %s\n", p.Pid, ticks, strings.TrimSpace(string(boot)), exe)
		if err := os.WriteFile(pidFile, []byte(line), 0o644); err != nil {
			logf("  %s: %v", pidFile, err)
		}
	}
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		_ = os.Remove(pidFile)
	}
	logf("  %s started (pid %d, log %s)", a.name, p.Pid, logPath)
	return p, stop, nil
}

// runAnchorSide runs one workload on one side: its CRDs, its process, the workload, the
// measures, and the cleanup (before the process stops, so that finalizers it set are served).
func (b *bench) runAnchorSide(ctx context.Context, dir string, a *anchor, w anchorWorkload, label string, quiet time.Duration) (*anchorSide, error) {
	side := &anchorSide{label: label, workload: w.id(), figures: map[string]float64{}}
	var stop func()
	if label == "anchor" {
		var crds []string
		for _, c := range a.crds {
			crds = append(crds, filepath.Join(dir, "src", a.name, c))
		}
		if err := b.installCRDs(ctx, crds); err != nil {
			return side, fmt.Errorf("install its CRDs: %w", err)
		}
		p, s, err := b.startAnchor(dir, a)
		if err != nil {
			return side, err
		}
		side.user, side.proc, stop = "system:serviceaccount:"+anchorNamespace+":"+a.name, p, s
	} else {
		if err := b.installCRDs(ctx, b.ourCRDs()); err != nil {
			return side, fmt.Errorf("install this operator's CRDs: %w", err)
		}
		if err := b.restartOperator(ctx); err != nil {
			return side, err
		}
		side.user, side.proc, stop = b.user, b.op, b.stopOperator
	}
	// The bench's helpers (quiet waits, audit queries, /proc samples) follow b.user and b.op.
	savedUser, savedOp := b.user, b.op
	b.user, b.op = side.user, side.proc
	defer func() {
		b.user, b.op = savedUser, savedOp
		stop()
		if label == "anchor" && a.clusterScoped != nil {
			b.deleteAnchorLeftovers(dir, a)
		}
	}()
	// Settled before the first CR: informers synced, start-up writes done.
	sleep(ctx, 10*time.Second)
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	if !side.proc.Running() {
		return side, fmt.Errorf("the process exited on start (log in %s)", b.workDir)
	}
	if rss, err := live.RSSBytes(side.proc.Pid); err == nil {
		side.figures[report.AnchorRSSBefore] = rss / (1 << 20)
	}
	if anon, err := live.ProcStatusKB(side.proc.Pid, "RssAnon:"); err == nil {
		side.figures[report.AnchorAnonBefore] = anon / 1024
	}
	if label == "ours" {
		// What this operator holds before any CR exists (the goal: next to nothing).
		b.heapTop(ctx, "A-"+w.id()+"-before-any-CR")
	}
	var err error
	if w.kind == "lws" {
		err = b.anchorLWS(ctx, side, quiet)
	} else {
		err = b.anchorScale(ctx, side, w, quiet)
	}
	if hwm, herr := live.ProcStatusKB(side.proc.Pid, "VmHWM:"); herr == nil {
		side.figures[report.AnchorRSSPeak] = hwm / 1024
	}
	if err == nil && !side.proc.Running() {
		err = fmt.Errorf("the process exited during the workload")
	}
	return side, err
}

// anchorQuietAndResync measures a quiet window, then a forced resync: an annotation changed on
// every CR (touch), counted until the side is quiet again.
func (b *bench) anchorQuietAndResync(ctx context.Context, side *anchorSide, quiet time.Duration, touch func() error) error {
	b.waitOperatorQuiet(ctx, 3*time.Second, 2*time.Minute)
	idle, err := b.measureIdle(ctx, quiet)
	if err != nil {
		return err
	}
	side.figures[report.AnchorRSSConverged] = median(idle.rss)
	if anon, err := live.ProcStatusKB(side.proc.Pid, "RssAnon:"); err == nil {
		side.figures[report.AnchorAnonConverged] = anon / 1024
	}
	if side.label == "ours" {
		// What this operator holds for the converged workload, against what it held before.
		b.heapTop(ctx, "A-"+side.workload+"-converged")
	}
	side.figures[report.AnchorQuietWrites] = float64(idle.c.Writes)
	side.figures[report.AnchorQuietReads] = float64(idle.c.APIReads)
	t0 := time.Now()
	if err := touch(); err != nil {
		return fmt.Errorf("forced resync: %w", err)
	}
	// At least a few seconds (a side that reacts sends its first request at once), then until
	// no write for 3 s.
	sleep(ctx, 5*time.Second)
	t1, _ := b.waitOperatorQuiet(ctx, 3*time.Second, 2*time.Minute)
	c := live.Summarize(b.operatorQuery(t0, t1, nil), t0)
	side.figures[report.AnchorResyncWrites] = float64(c.Writes)
	side.figures[report.AnchorResyncReads] = float64(c.APIReads)
	return nil
}

// addConvergence records what a side did from t0 until converged at t1.
func (b *bench) addConvergence(side *anchorSide, t0, t1 time.Time, cpu0 float64) {
	side.figures[report.AnchorTime] = t1.Sub(t0).Seconds()
	if cpu1, err := live.CPUSeconds(side.proc.Pid); err == nil {
		side.figures[report.AnchorCPU] = cpu1 - cpu0
	}
	c := live.Summarize(b.operatorQuery(t0, t1, nil), t0)
	conflicts := 0
	for _, e := range b.operatorQuery(t0, t1, nil) {
		if e.Code() == 409 {
			conflicts++
		}
	}
	side.figures[report.AnchorWrites] = float64(c.Writes)
	side.figures[report.AnchorEvents] = float64(c.Events)
	side.figures[report.AnchorReads] = float64(c.APIReads)
	side.figures[report.AnchorConflicts] = float64(conflicts)
}

// oursSyncs is this operator's count of an operand's syncs (NaN for an anchor, or when the
// scrape fails).
func (b *bench) oursSyncs(ctx context.Context, side *anchorSide, operand string) float64 {
	if side.label != "ours" {
		return math.NaN()
	}
	s, err := b.syncStats(ctx, operand)
	if err != nil {
		return math.NaN()
	}
	return s.syncs
}

// addSyncs records this operator's syncs per CR since before (nothing for an anchor).
func (b *bench) addSyncs(ctx context.Context, side *anchorSide, operand string, before float64, crs int) {
	if after := b.oursSyncs(ctx, side, operand); !math.IsNaN(after) && !math.IsNaN(before) && crs > 0 {
		side.figures[report.AnchorSyncs] = (after - before) / float64(crs)
	}
}

// anchorLWS is the LWS workload: CR `cluster` created, until Available; quiet; forced resync;
// drift repair of the operand Deployment; the CR deleted.
func (b *bench) anchorLWS(ctx context.Context, side *anchorSide, quiet time.Duration) error {
	cpu0, _ := live.CPUSeconds(side.proc.Pid)
	syncs0 := b.oursSyncs(ctx, side, operandLWS)
	t0 := time.Now()
	if err := b.createCR(ctx); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	defer func() {
		if err := b.dyn.Resource(crGVR).Delete(context.Background(), crName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			logf("  delete the CR: %v", err)
		}
		_ = live.Poll(context.Background(), 500*time.Millisecond, 2*time.Minute, func() (bool, error) {
			_, err := b.getCR(context.Background())
			return apierrors.IsNotFound(err), nil
		})
	}()
	t1, err := b.waitAvailable(ctx, 5*time.Minute)
	if err != nil {
		return fmt.Errorf("CR cluster not Available: %w", err)
	}
	b.addConvergence(side, t0, t1, cpu0)
	b.addSyncs(ctx, side, operandLWS, syncs0, 1)
	err = b.anchorQuietAndResync(ctx, side, quiet, func() error {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"%d"}}}`, touchAnnotation, time.Now().UnixNano())
		_, err := b.dyn.Resource(crGVR).Patch(ctx, crName, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return err
	})
	if err != nil {
		return err
	}
	// Drift: the operand's Deployment, wherever the side put it (label-free: by name).
	deployGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	list, err := b.dyn.Resource(deployGVR).List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=lws-controller-manager"})
	if err != nil || len(list.Items) != 1 {
		return fmt.Errorf("drift: want one Deployment lws-controller-manager, got %v (%v)", len(list.Items), err)
	}
	d := list.Items[0]
	ref := objRef{gvr: deployGVR, kind: "Deployment", namespace: d.GetNamespace(), name: d.GetName()}
	t2 := time.Now()
	if err := b.del(ctx, ref, d.GetUID()); err != nil {
		return err
	}
	err = live.Poll(ctx, 50*time.Millisecond, 2*time.Minute, func() (bool, error) {
		got, err := b.get(ctx, ref)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && got.GetUID() != d.GetUID(), err
	})
	if err != nil {
		return fmt.Errorf("drift: the Deployment was not recreated: %w", err)
	}
	side.figures[report.AnchorDrift] = time.Since(t2).Seconds()
	return nil
}

// deploymentsOf is the kind the bench watches for a Gateway's convergence on both sides: its
// Deployment (named as the Gateway) has an available replica. The anchor sets no condition
// that says so; this operator's Available says the same.
func deploymentsOf() *scaleKind {
	return &scaleKind{
		kind: "Deployment", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		unlabeled: true,
		converged: func(d *unstructured.Unstructured) bool {
			n, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
			return n >= 1
		},
	}
}

// anchorScale is the batch or gateway workload: n CRs in n/10 namespaces created at once, until
// all converged; quiet; forced resync; the namespaces deleted.
func (b *bench) anchorScale(ctx context.Context, side *anchorSide, w anchorWorkload, quiet time.Duration) error {
	k := batchKind()
	if w.kind == "gateway" {
		k = gatewayKind()
	}
	s := &scaleScenario{
		sc:              "A-" + w.id(),
		namespacePrefix: fmt.Sprintf("bench-a%s-%s", side.label[:1], w.id()),
		namespaces:      max(1, w.n/10),
		kinds:           []*scaleKind{k},
		counts:          []int{w.n},
	}
	if err := b.scaleSetup(ctx, s); err != nil {
		return err
	}
	defer b.deleteNamespaces(scaleLabel + "=true")
	watched := s
	if w.kind == "gateway" {
		watched = &scaleScenario{namespacePrefix: s.namespacePrefix, kinds: []*scaleKind{deploymentsOf()}, counts: []int{w.n}}
	}
	tracker, stopWatch, err := b.watchConverged(ctx, watched)
	if err != nil {
		return err
	}
	defer stopWatch()
	cpu0, _ := live.CPUSeconds(side.proc.Pid)
	profiled := make(chan struct{})
	if side.label == "ours" && b.cpuProfileSeconds > 0 {
		go func() {
			defer close(profiled)
			b.cpuProfile(ctx, s.sc, b.cpuProfileSeconds)
		}()
	} else {
		close(profiled)
	}
	// The workload returns only once the profile has ended, so none runs into the next one. (The
	// profiler's sampling costs ours a little CPU while it runs: off by default.)
	defer func() { <-profiled }()
	syncs0 := b.oursSyncs(ctx, side, k.operand)
	t0 := time.Now()
	if err := parallel(ctx, len(s.crs), b.loadConc, func(i int) error { return b.createScaleCR(ctx, s.crs[i]) }); err != nil {
		return err
	}
	seen, err := b.waitConverged(ctx, watched, tracker, convergeTimeout(w.n, b.convergeMinutes, b.convergePerCR))
	if err != nil {
		return err
	}
	stopWatch()
	b.addConvergence(side, t0, seen[watched.kinds[0]], cpu0)
	b.addSyncs(ctx, side, k.operand, syncs0, w.n)
	return b.anchorQuietAndResync(ctx, side, quiet, func() error {
		return parallel(ctx, len(s.crs), b.loadConc, func(i int) error {
			c := s.crs[i]
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"%d"}}}`, touchAnnotation, time.Now().UnixNano())
			_, err := b.dyn.Resource(k.gvr).Namespace(c.namespace).Patch(ctx, c.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			return err
		})
	})
}

// deleteAnchorLeftovers deletes the cluster-scoped objects an anchor's operand leaves behind
// and its operand namespace's contents (the namespace is recreated empty), so that this
// operator starts from a clean cluster.
func (b *bench) deleteAnchorLeftovers(dir string, a *anchor) {
	ctx := context.Background()
	refs, err := a.clusterScoped(dir)
	if err != nil {
		logf("  %s leftovers: %v", a.name, err)
		return
	}
	for _, r := range refs {
		if err := b.dyn.Resource(r.gvr).Delete(ctx, r.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			logf("  delete %s %s: %v", r.kind, r.name, err)
		}
	}
	if a.operandNamespace != "" {
		_ = b.kube.CoreV1().Namespaces().Delete(ctx, a.operandNamespace, metav1.DeleteOptions{})
		_ = live.Poll(ctx, time.Second, 3*time.Minute, func() (bool, error) {
			_, err := b.kube.CoreV1().Namespaces().Get(ctx, a.operandNamespace, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	}
	logf("  %s: %d cluster-scoped operand objects deleted", a.name, len(refs))
}

// saveAnchorTable writes the table as JSON and text next to the bench's results and prints it.
func (b *bench) saveAnchorTable(t *report.AnchorTable) error {
	short := t.Commit
	if len(short) > 12 {
		short = short[:12]
	}
	base := filepath.Join(b.outDir, fmt.Sprintf("anchors-%s-%s", short, t.Started.Format("20060102T150405Z")))
	raw, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", raw, 0o644); err != nil {
		return err
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Anchors: the upstream operators and this operator, one after the other on the same workload (commit %s)\n", short)
	names := make([]string, 0, len(t.Anchors))
	for n, c := range t.Anchors {
		names = append(names, n+" "+c)
	}
	sort.Strings(names)
	fmt.Fprintf(&sb, "anchors: %s\n", strings.Join(names, ", "))
	var optional []string
	for k, v := range t.Settings {
		if strings.HasPrefix(k, "optional APIs of ") {
			optional = append(optional, strings.TrimPrefix(k, "optional APIs of ")+": "+v)
		}
	}
	if len(optional) > 0 {
		sort.Strings(optional)
		fmt.Fprintf(&sb, "optional APIs (hack/optional-crds.sh): %s\n", strings.Join(optional, "; "))
	}
	rows := [][]string{}
	val := func(v *float64) string {
		if v == nil || math.IsNaN(*v) {
			return "-"
		}
		return report.FormatValue(*v)
	}
	for _, r := range t.Rows {
		ratio := "-"
		if r.Ratio != nil {
			ratio = strconv.FormatFloat(*r.Ratio, 'f', 2, 64)
		}
		rows = append(rows, []string{r.Workload, r.Measure, val(r.Anchor), val(r.Ours), ratio})
	}
	report.PrintRows(&sb, []string{"workload", "measure", "anchor", "ours", "ours/anchor"}, rows, "llrrr")
	for _, f := range t.Failures {
		fmt.Fprintf(&sb, "FAILED: %s\n", f)
	}
	if err := os.WriteFile(base+".txt", []byte(sb.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("\n%s\nJSON:  %s.json\ntable: %s.txt\n", sb.String(), base, base)
	return nil
}
