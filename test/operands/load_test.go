package operands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
	"github.com/llm-infra/llm-infra-operator/test/internal/load"
)

// The load's settings: a steady rate of chat completions, streamed ones and batches (one op in
// batchEvery is a whole batch: upload, create, poll, download), each phase holding at least
// phaseRequests requests. Bounded: loadMaxOps ops, loadMaxDuration.
const (
	loadInterval    = 50 * time.Millisecond
	batchEvery      = 20
	batchRequests   = 2
	batchPoll       = time.Second
	batchDeadline   = 3 * time.Minute
	phaseRequests   = 100
	loadMaxOps      = 6000
	loadMaxDuration = 10 * time.Minute
	// The operator's lease during the spec (as the reliability suite runs it): a restart after a
	// SIGKILL waits out the killed process's lease, library-go's default 137s otherwise.
	loadLease = 10 * time.Second
	// leaseName is the operator's leader-election Lease (cmd/llm-infra-operator).
	leaseName = "llm-infra-operator-lock"
)

// Phases of the load, in the order the spec runs them.
const (
	phaseQuiet    = "quiet"
	phaseAfterAll = "after"
)

// loadClient is the users' HTTP client: its own connection pool, keep-alive as clients use it.
var loadClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

// keepAliveRace is a request that failed with EOF before any answer on a reused keep-alive
// connection: the server closed the idle connection as the request was sent on it. A program
// told to end (TERM) closes its idle connections at once (http.Server.Shutdown: the inference
// gateway and the batch apiserver), so a client that picked one of them from its pool at that
// instant meets EOF; Go's client retries that only for idempotent requests (a POST it may not
// resend), OpenAI's client libraries retry it. No pod setting removes it (a preStop delay only
// moves the moment); in a rollout it is counted apart, with its variant inside the gateway
// (gatewaySelfCallRace).
type keepAliveRace struct{ err error }

func (e keepAliveRace) Error() string {
	return e.err.Error() + " (the server closed the reused keep-alive connection)"
}

func (e keepAliveRace) Unwrap() error { return e.err }

// gatewaySelfCallRace says whether err is the same race inside the inference gateway: it
// answers a chat completion by calling itself (http://0.0.0.0:<port>/proxy/<provider>/...) on a
// keep-alive connection of its own client's pool, so a request it accepted just before TERM
// meets the connection Shutdown closed (broken pipe, EOF, reset) and the gateway answers 400
// with that error. Seen once in CI during a CR edit's rollout ("write: broken pipe").
func gatewaySelfCallRace(err error) bool {
	var se statusError
	if !errors.As(err, &se) || se.code != http.StatusBadRequest || !strings.Contains(se.body, "http://0.0.0.0:") || !strings.Contains(se.body, "/proxy/") {
		return false
	}
	for _, closed := range []string{"broken pipe", "EOF", "connection reset by peer"} {
		if strings.Contains(se.body, closed) {
			return true
		}
	}
	return false
}

// statusError is an answer other than 200 or 201.
type statusError struct {
	request string
	code    int
	body    string
}

func (e statusError) Error() string { return fmt.Sprintf("%s: %d %s", e.request, e.code, e.body) }

func send(ctx context.Context, method, url, contentType string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	var reused bool
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) { reused = c.Reused }}))
	resp, err := loadClient.Do(req)
	if err != nil {
		if reused && errors.Is(err, io.EOF) {
			return nil, keepAliveRace{err}
		}
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return nil, statusError{fmt.Sprintf("%s %s", method, url), resp.StatusCode, string(bytes.TrimSpace(data))}
	}
	return data, nil
}

// chatOp is one chat completion through the Gateway; streamed, the whole stream must come,
// ending in [DONE].
func chatOp(gw string, stream bool) load.Op {
	kind := "chat"
	if stream {
		kind = "chat streamed"
	}
	return func(ctx context.Context, r *load.Recorder) {
		_ = r.Do(kind, func() error {
			body, err := send(ctx, http.MethodPost, gw+"/v1/chat/completions", "application/json", chatRequest("load "+kind, stream))
			if gatewaySelfCallRace(err) {
				return keepAliveRace{err}
			}
			if err != nil {
				return err
			}
			if stream {
				if !bytes.Contains(body, []byte("data: [DONE]")) {
					return fmt.Errorf("stream without [DONE]: %q", body)
				}
				return nil
			}
			var c chatResponse
			if err := json.Unmarshal(body, &c); err != nil || len(c.Choices) == 0 {
				return fmt.Errorf("no choices (%v): %s", err, body)
			}
			return nil
		})
	}
}

// batchOp is one batch's life through the LLMBatchGateway at api: upload, create (then it counts
// as accepted), poll until it ends, download; completed when every request's answer is there
// once. Its requests are of the kinds "<kind> upload", "<kind> create", ...
func batchOp(api, kind string) load.Op {
	return func(ctx context.Context, r *load.Recorder) {
		input, _ := batchInput(batchRequests, fmt.Sprintf("load-%d", time.Now().UnixNano()))
		var fileID, batchID string
		if r.Do(kind+" upload", func() error {
			var body bytes.Buffer
			w := multipart.NewWriter(&body)
			_ = w.WriteField("purpose", "batch")
			part, _ := w.CreateFormFile("file", "input.jsonl")
			_, _ = part.Write(input)
			_ = w.Close()
			data, err := send(ctx, http.MethodPost, api+"/v1/files", w.FormDataContentType(), body.Bytes())
			if err != nil {
				return err
			}
			var f struct{ ID string }
			if err := json.Unmarshal(data, &f); err != nil || f.ID == "" {
				return fmt.Errorf("no file id (%v): %s", err, data)
			}
			fileID = f.ID
			return nil
		}) != nil {
			return
		}
		if r.Do(kind+" create", func() error {
			req, _ := json.Marshal(map[string]string{"input_file_id": fileID, "endpoint": "/v1/chat/completions", "completion_window": "24h"})
			data, err := send(ctx, http.MethodPost, api+"/v1/batches", "application/json", req)
			if err != nil {
				return err
			}
			var b batchStatus
			if err := json.Unmarshal(data, &b); err != nil || b.ID == "" {
				return fmt.Errorf("no batch id (%v): %s", err, data)
			}
			batchID = b.ID
			return nil
		}) != nil {
			return
		}
		accepted := r.Accepted()
		deadline := time.Now().Add(batchDeadline)
		var b batchStatus
		for b.Status != "completed" {
			if time.Now().After(deadline) {
				r.Lost(accepted, fmt.Sprintf("%s %s still %q after %s", kind, batchID, b.Status, batchDeadline))
				return
			}
			select {
			case <-ctx.Done():
				r.Lost(accepted, fmt.Sprintf("%s %s still %q when the spec ended", kind, batchID, b.Status))
				return
			case <-time.After(batchPoll):
			}
			_ = r.Do(kind+" poll", func() error {
				data, err := send(ctx, http.MethodGet, api+"/v1/batches/"+batchID, "", nil)
				if err != nil {
					return err
				}
				return json.Unmarshal(data, &b)
			})
			if b.Status == "failed" || b.Status == "expired" || b.Status == "cancelled" {
				errs, _ := json.Marshal(b.Errors)
				r.Lost(accepted, fmt.Sprintf("%s %s ended %s: %s", kind, batchID, b.Status, errs))
				return
			}
		}
		var out []byte
		if r.Do(kind+" download", func() error {
			var err error
			out, err = send(ctx, http.MethodGet, api+"/v1/files/"+b.OutputFileID+"/content", "", nil)
			return err
		}) != nil {
			r.Lost(accepted, fmt.Sprintf("%s %s: its output could not be downloaded", kind, batchID))
			return
		}
		if why := checkBatchOutput(out, batchRequests); why != "" {
			r.Lost(accepted, fmt.Sprintf("%s %s: %s", kind, batchID, why))
			return
		}
		r.Completed(accepted)
	}
}

// mcpToolsOp lists the MCP tools through the gateway that discovered the MCP server; the
// server's echo tool must be among them.
func mcpToolsOp(gw string) load.Op {
	return func(ctx context.Context, r *load.Recorder) {
		_ = r.Do("mcp tools", func() error {
			body, err := send(ctx, http.MethodGet, gw+"/v1/mcp/tools", "", nil)
			if err != nil {
				return err
			}
			tools, err := load.ParseMCPTools(body)
			if err != nil {
				return err
			}
			if !slices.Contains(tools, mcpEchoTool) {
				return fmt.Errorf("no %s among the gateway's tools %v", mcpEchoTool, tools)
			}
			return nil
		})
	}
}

// mcpCallOp calls the MCP server's echo tool (its Service, which the operator renders; see
// test/internal/load's MCP requests for why not through the gateway) in a session of its own;
// the answer must echo the message.
func mcpCallOp(server string) load.Op {
	return func(ctx context.Context, r *load.Recorder) {
		_ = r.Do("mcp tool call", func() error {
			msg := fmt.Sprintf("load %d", time.Now().UnixNano())
			text, err := load.CallMCPTool(ctx, loadClient, server, "echo", map[string]any{"message": msg})
			if err != nil {
				return err
			}
			if !strings.Contains(text, msg) {
				return fmt.Errorf("echo answered %q to %q", text, msg)
			}
			return nil
		})
	}
}

// checkBatchOutput says what is wrong with a batch's output of n requests: every custom_id
// once (none lost, none run twice), each answered 200.
func checkBatchOutput(out []byte, n int) string {
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct {
			CustomID string `json:"custom_id"`
			Response struct {
				StatusCode int `json:"status_code"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return fmt.Sprintf("output line %q: %v", sc.Text(), err)
		}
		if line.Response.StatusCode != http.StatusOK {
			return fmt.Sprintf("request %s answered %d", line.CustomID, line.Response.StatusCode)
		}
		seen[line.CustomID]++
	}
	if len(seen) != n {
		return fmt.Sprintf("%d of %d requests in the output", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			return fmt.Sprintf("request %s answered %d times", id, k)
		}
	}
	return ""
}

// localOperator is the operator this suite's script runs as a local process
// (hack/test-operands-local.sh, through hack/lib/operator.sh), which the spec kills.
func localOperator(args string) *live.Operator {
	Expect(os.Getenv("LOCAL_CLUSTER_INSTANCE")).NotTo(BeEmpty(),
		"serving under faults kills the operator: run the suite with hack/test-operands-local.sh, which runs it as a local process")
	return &live.Operator{Root: filepath.Join("..", ".."), Listen: os.Getenv("OPERATOR_LISTEN"),
		Env: []string{"OPERATOR_SKIP_BUILD=true", "OPERATOR_ARGS=" + args}}
}

// runningOperator is the operator process running now.
func runningOperator(op *live.Operator) *live.Proc {
	out, err := op.Script("pid")
	Expect(err).NotTo(HaveOccurred(), "the operator is not running as a local process")
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	Expect(err).NotTo(HaveOccurred())
	ticks, started, err := live.ProcessStart(pid)
	Expect(err).NotTo(HaveOccurred())
	return &live.Proc{Pid: pid, Ticks: ticks, Started: started}
}

// operandPods selects the pods of a stack's namespace that the faults are measured on: every one
// but the simulator's (the samples' vllm-sim), so the operator's, and before a switch
// upstream's, which carry none of its labels.
const operandPods = "app!=vllm-sim"

// podState is each operand pod's restarts, by pod UID: a pod replaced or a container restarted
// shows as a difference.
func podState(ctx context.Context, ns string) map[types.UID]int32 {
	pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: operandPods})
	Expect(err).NotTo(HaveOccurred())
	out := map[types.UID]int32{}
	for _, p := range pods.Items {
		var restarts int32
		for _, cs := range p.Status.ContainerStatuses {
			restarts += cs.RestartCount
		}
		out[p.UID] = restarts
	}
	return out
}

// podsChanged counts the pods of before that are gone from after or whose containers restarted
// since.
func podsChanged(before, after map[types.UID]int32) int {
	n := 0
	for uid, restarts := range before {
		if now, ok := after[uid]; !ok || now != restarts {
			n++
		}
	}
	return n
}

// waitPhaseRequests waits until n more requests were sent in the current phase than when it was
// called: a window of the load after whatever came before.
func waitPhaseRequests(ctx context.Context, r *load.Recorder, n int) {
	phase := r.Phase()
	sent := func() int {
		for _, p := range r.Report() {
			if p.Phase == phase {
				return p.Sent
			}
		}
		return 0
	}
	want := sent() + n
	Eventually(func(g Gomega) {
		g.Expect(sent()).To(BeNumerically(">=", want), "requests in phase %q", phase)
	}).WithContext(ctx).WithTimeout(time.Duration(2*n)*loadInterval + time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
}

// waitDeploymentsRolled waits until each Deployment has observed its latest generation, runs only
// updated pods, all ready, and no pod of the namespace's operands is terminating.
func waitDeploymentsRolled(ctx context.Context, ns string, names ...string) {
	Eventually(func(g Gomega) {
		for _, name := range names {
			d, err := fw.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation), name)
			want := *d.Spec.Replicas
			g.Expect([]int32{d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas}).
				To(HaveEach(want), "%s: replicas, updated, ready, available", name)
		}
		pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: operandPods})
		g.Expect(err).NotTo(HaveOccurred())
		for _, p := range pods.Items {
			g.Expect(p.DeletionTimestamp).To(BeNil(), "pod %s is terminating", p.Name)
		}
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}

func mergePatch(ctx context.Context, obj *unstructured.Unstructured, ns string, patch map[string]any) {
	data, err := json.Marshal(patch)
	Expect(err).NotTo(HaveOccurred())
	_, err = resource(obj, ns).Patch(ctx, obj.GetName(), types.MergePatchType, data, metav1.PatchOptions{FieldManager: fieldManager})
	Expect(err).NotTo(HaveOccurred(), "patch %s %s/%s", obj.GetKind(), ns, obj.GetName())
}

// stack is what the load runs against in a namespace: a Gateway before the simulator, an
// LLMBatchGateway in sync mode before the same simulator, and their CRs; with MCP and async
// (servingMCPAndAsync) also the sample's MCP server and the Gateway that discovers it, and an
// LLMBatchGateway in async mode in a namespace of its own (ns-async: its CR has the same name).
type stack struct {
	ns           string
	gateway, api string
	gatewayCR    *unstructured.Unstructured
	batchCR      *unstructured.Unstructured
	// mcpGateway and mcpServer (its /mcp endpoint), asyncNS and asyncAPI: empty without MCP
	// and async.
	mcpGateway, mcpServer string
	asyncNS, asyncAPI     string
	// upstream: what the upstream operators made for the CRs (deployUpstreamStack); empty when
	// this operator made the stack.
	upstream []upstreamObject
	// chat: a Service answering chat completions itself (servingChatThroughService), and lws
	// the user's LeaderWorkerSet behind it (deployUnderLWSOperator); empty otherwise.
	chat string
	lws  *userLWS
}

// serving is what the load sends.
type serving int

const (
	// servingChatAndSync: chat completions (plain, streamed) and sync batches.
	servingChatAndSync serving = iota
	// servingMCPAndAsync: those, MCP tool lists and calls, and async batches.
	servingMCPAndAsync
	// servingChatThroughService: chat completions only, through the Service of the user's
	// LeaderWorkerSet (no Gateway, no batches).
	servingChatThroughService
)

// mcpEchoTool is the sample MCP server's echo tool as the gateway names it (mcp_<tool>).
const mcpEchoTool = "mcp_echo"

// namespaces are the stack's namespaces, whose operand pods a fault must not touch.
func (s *stack) namespaces() []string {
	if s.asyncNS == "" {
		return []string{s.ns}
	}
	return []string{s.ns, s.asyncNS}
}

// stackPods is podState over the stack's namespaces.
func stackPods(ctx context.Context, s *stack) map[types.UID]int32 {
	out := map[types.UID]int32{}
	for _, ns := range s.namespaces() {
		maps.Copy(out, podState(ctx, ns))
	}
	return out
}

func deployStack(ctx context.Context, ns string, what serving) *stack {
	batchObjs, batchCRObj := batchSample(ns)
	_, batch := deployBatch(ctx, ns, batchObjs, batchCRObj)
	gwObjs, err := render("inference-gateway.yaml", map[string]string{"NAMESPACE": ns, "BATCH_NAMESPACE": ns})
	Expect(err).NotTo(HaveOccurred())
	gwCR := byKind(gwObjs, "Gateway", gatewayCR)
	apply(ctx, ns, byKind(gwObjs, "Secret", "openai-secret"), gwCR)
	waitCondition(ctx, gwCR, ns, "Available")
	gw := serviceURL(ctx, ns, gatewayCR, 8080, "http")
	eventuallyChat(ctx, gw, nil, "warm up")
	s := &stack{ns: ns, gateway: gw, api: batch.url, gatewayCR: gwCR, batchCR: batchCRObj}
	if what == servingMCPAndAsync {
		mcp, mcpGW := byKind(gwObjs, "MCP", "mcp-everything"), byKind(gwObjs, "Gateway", mcpGatewayCR)
		apply(ctx, ns, mcp, mcpGW)
		s.asyncNS = namespace(ctx, ns+"-async")
		_, async := deployAsyncBatch(ctx, s.asyncNS, nil)
		s.asyncAPI = async.url
		waitCondition(ctx, mcp, ns, "Available")
		waitCondition(ctx, mcpGW, ns, "Available")
		s.mcpGateway = serviceURL(ctx, ns, mcpGatewayCR, 8080, "http")
		s.mcpServer = serviceURL(ctx, ns, mcp.GetName()+"-service", 3001, "http") + "/mcp"
		// The gateway lists the server's tools once it reached it (it retries in the background).
		Eventually(func(g Gomega) {
			tools, err := mcpTools(ctx, s.mcpGateway)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(tools).To(ContainElement(mcpEchoTool))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	}
	return s
}

// fault is injected while the load runs, and returns once it is over (the operator back and
// leading, the Deployments rolled) with the number of the stack's Deployments it rolled: a
// rollout replaces the serving pods (keepAliveRace). operator: the operator's own fault, which
// must replace or restart no operand pod.
type fault struct {
	phase    string
	operator bool
	// down names the backing service the fault stops. While it is down the batch apiserver
	// answers 500 to what needs it (upstream: one database, nothing retried); those answers to
	// requests sent while the fault ran (stopped, started, answering again) are counted apart.
	down   string
	inject func(ctx context.Context, s *stack) (rolled int)
}

// window is when a fault ran.
type window struct{ from, to time.Time }

// answeredWhileDown: o failed with a 500 and was sent while w's fault ran.
func answeredWhileDown(o load.Outcome, w window) bool {
	var se statusError
	return errors.As(o.Err, &se) && se.code == http.StatusInternalServerError && !o.Start.Before(w.from) && !o.Start.After(w.to)
}

// untilRecovered extends a backing service's window to when the operand answered again: the
// start of the phase's first batch request (every batch kind needs Redis and PostgreSQL) that
// succeeded after the service was answering. Requests sent before it met the connections the
// gateway's pools held from before the restart, each failing once (upstream retries nothing);
// a 500 after it is a failure like any other. Seen: the apiserver answered a file upload and a
// batch poll with 500 just after PostgreSQL was back.
func untilRecovered(outcomes []load.Outcome, phase string, w window) window {
	recovered := w.to
	for _, o := range outcomes {
		if o.Phase == phase && o.Err == nil && strings.HasPrefix(o.Kind, "batch") && o.Start.After(w.to) &&
			(recovered.Equal(w.to) || o.Start.Before(recovered)) {
			recovered = o.Start
		}
	}
	return window{w.from, recovered}
}

// leaseArgs are the operator's arguments with the spec's short lease.
func leaseArgs() string {
	return strings.TrimSpace(fmt.Sprintf("%s --leader-elect-lease-duration=%s --leader-elect-renew-deadline=%s --leader-elect-retry-period=%s",
		os.Getenv("OPERATOR_ARGS"), loadLease, loadLease*7/10, loadLease/5))
}

// withShortLease restarts the operator with loadLease (a TERM releases the current lease), and
// with its usual arguments after the spec.
func withShortLease() {
	By("restarting the operator with a " + loadLease.String() + " lease (TERM releases the current one)")
	op := localOperator(leaseArgs())
	Expect(op.Stop()).To(Succeed())
	_, err := op.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { restartWithUsualArgs("restarting the operator with its usual lease") })
}

// restartWithUsualArgs stops whichever operator runs and starts the suite's own, with its usual
// arguments (OPERATOR_ARGS): what a spec that replaced the operator leaves behind (said by step).
func restartWithUsualArgs(step string) {
	By(step)
	restore := localOperator(os.Getenv("OPERATOR_ARGS"))
	Expect(restore.Stop()).To(Succeed())
	_, err := restore.Start()
	Expect(err).NotTo(HaveOccurred())
}

// waitLeaseTaken waits until a process took the operator's lease after since.
func waitLeaseTaken(ctx context.Context, since time.Time) {
	leases := fw.kube.CoordinationV1().Leases(envOr("OPERATOR_NAMESPACE", "openshift-llm-infra-operator"))
	Eventually(func(g Gomega) {
		l, err := leases.Get(ctx, leaseName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(l.Spec.AcquireTime).NotTo(BeNil())
		g.Expect(l.Spec.AcquireTime.Time).To(BeTemporally(">", since), "a process took the lease after the fault")
	}).WithContext(ctx).WithTimeout(3 * loadLease).WithPolling(200 * time.Millisecond).Should(Succeed())
	GinkgoWriter.Printf("the lease was taken %.1fs after the fault\n", time.Since(since).Seconds())
}

// operatorKilled: SIGKILL, then started again; the restarted process leads.
var operatorKilled = fault{phase: "operator SIGKILLed and restarted", operator: true, inject: func(ctx context.Context, _ *stack) int {
	op := localOperator(leaseArgs())
	killed := time.Now()
	Expect(op.Kill(ctx, runningOperator(op))).To(Succeed())
	_, err := op.Start()
	Expect(err).NotTo(HaveOccurred())
	waitLeaseTaken(ctx, killed)
	return 0
}}

// apiServerRestarted: kube-apiserver stopped and started again (hack/local-cluster.sh
// restart-apiserver); the real-pod agent, the operator and the pods' API clients reconnect. With
// the spec's short lease the operator may lose its lease and exit while the API server is gone
// (library-go's renew deadline is 7s here): then it is started again, as its Deployment would.
var apiServerRestarted = fault{phase: "kube-apiserver restarted", operator: true, inject: func(ctx context.Context, _ *stack) int {
	op := localOperator(leaseArgs())
	proc := runningOperator(op)
	restarted := time.Now()
	cmd := exec.CommandContext(ctx, filepath.Join("..", "..", "hack", "local-cluster.sh"), "restart-apiserver")
	cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
	Expect(cmd.Run()).To(Succeed())
	if !proc.Running() {
		GinkgoWriter.Printf("the operator exited while the API server was away; starting it again\n")
		_, err := op.Start()
		Expect(err).NotTo(HaveOccurred())
		waitLeaseTaken(ctx, restarted)
	}
	return 0
}}

// backingServiceRestarted: the batch gateway's Redis or PostgreSQL (hack/operands/services.sh, a
// process on the instance's loopback address) stopped as its pod's stop would and started again
// with its data (Redis keeps none); the gateway's pods reconnect. Neither the operator nor the
// serving pods are touched: what it costs is the operand's own handling of a lost connection.
func backingServiceRestarted(name string) fault {
	return fault{phase: name + " restarted", down: name, inject: func(ctx context.Context, _ *stack) int {
		cmd := exec.CommandContext(ctx, filepath.Join("..", "..", "hack", "operands", "services.sh"), "restart", name)
		cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
		Expect(cmd.Run()).To(Succeed(), "restarting %s", name)
		return 0
	}}
}

// leaderKilled: a second operator process waits as standby; the leader is SIGKILLed, the
// standby takes the lease; the killed one is started again (now the standby), and the second
// stopped after the spec.
var leaderKilled = fault{phase: "leader SIGKILLed, standby took over", operator: true, inject: func(ctx context.Context, _ *stack) int {
	op := localOperator(leaseArgs())
	leader := runningOperator(op)
	host, port, _ := strings.Cut(os.Getenv("OPERATOR_LISTEN"), ":")
	p, err := strconv.Atoi(port)
	Expect(err).NotTo(HaveOccurred(), "OPERATOR_LISTEN %q", os.Getenv("OPERATOR_LISTEN"))
	dir := os.Getenv("LOCAL_CLUSTER_DIR")
	Expect(dir).NotTo(BeEmpty(), "LOCAL_CLUSTER_DIR (hack/lib/instance.sh)")
	second := localOperator(leaseArgs())
	second.Listen = fmt.Sprintf("%s:%d", host, p+1)
	second.Log = filepath.Join(dir, "logs", "operator-second.log")
	second.Env = append(second.Env, "OPERATOR_LISTEN="+second.Listen, "OPERATOR_LOG="+second.Log,
		"OPERATOR_PIDFILE="+filepath.Join(dir, "pids", "llm-infra-operator-second.pid"))
	_, err = second.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(second.Stop()).To(Succeed()) })
	killed := time.Now()
	Expect(op.Kill(ctx, leader)).To(Succeed())
	waitLeaseTaken(ctx, killed)
	_, err = op.Start()
	Expect(err).NotTo(HaveOccurred())
	return 0
}}

// upgradeHook runs one step of hack/test-upgrade.sh (its hooks: install-previous,
// start-previous, install-current) on this suite's instance, the operator with the spec's lease.
func upgradeHook(ctx context.Context, step string) {
	cmd := exec.CommandContext(ctx, filepath.Join("..", "..", "hack", "test-upgrade.sh"), step)
	cmd.Env = append(os.Environ(), "UPGRADE_INSTANCE="+os.Getenv("LOCAL_CLUSTER_INSTANCE"),
		"OPERATOR_SKIP_BUILD=true", "OPERATOR_ARGS="+leaseArgs())
	cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
	Expect(cmd.Run()).To(Succeed(), "hack/test-upgrade.sh %s", step)
}

// withPreviousRelease replaces the suite's operator by the previous release's (its deploy/ and
// its binary, built once into test-upgrade's cache) with the spec's lease; after the spec, the
// working tree's deploy/ and operator with its usual lease, whatever the spec reached.
func withPreviousRelease(ctx context.Context) {
	Expect(os.Getenv("LOCAL_CLUSTER_INSTANCE")).NotTo(BeEmpty(), "the upgrade replaces the operator: run the suite with hack/test-operands-local.sh")
	By("installing the previous release (hack/upgrade/previous-ref) and starting its operator with a " + loadLease.String() + " lease")
	Expect(localOperator(leaseArgs()).Stop()).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		By("the working tree's deploy/ and operator again, with its usual lease")
		upgradeHook(ctx, "install-current")
		restartWithUsualArgs("starting the working tree's operator")
	})
	upgradeHook(ctx, "install-previous")
	upgradeHook(ctx, "start-previous")
}

// operatorDeployments are the generations of the Deployments the operator made in ns (its
// operands' label; the simulator has none).
func operatorDeployments(ctx context.Context, ns string) map[string]int64 {
	list, err := fw.kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/part-of"})
	Expect(err).NotTo(HaveOccurred())
	out := map[string]int64{}
	for _, d := range list.Items {
		out[d.Name] = d.Generation
	}
	Expect(out).NotTo(BeEmpty(), "no Deployment of the operator's in %s", ns)
	return out
}

// operatorUpgraded: the previous release's operator (withPreviousRelease) upgraded the way OLM
// does it (hack/test-upgrade.sh): the new CRDs and RBAC first, then the old process stopped and
// the new one started; it takes the lease and renders every CR, and each Deployment whose pod
// template changed between the releases rolls. Returns once one did and all of them rolled.
var operatorUpgraded = fault{phase: "operator upgraded from the previous release", inject: func(ctx context.Context, s *stack) int {
	before := operatorDeployments(ctx, s.ns)
	upgradeHook(ctx, "install-current")
	op := localOperator(leaseArgs())
	Expect(op.Stop()).To(Succeed())
	upgraded := time.Now()
	_, err := op.Start()
	Expect(err).NotTo(HaveOccurred())
	waitLeaseTaken(ctx, upgraded)
	// The new operator's first sync is seen by a Deployment it changes; the releases' templates
	// of these operands differ (hack/upgrade/previous-ref), else this phase would measure no
	// rollout and says so.
	Eventually(func(g Gomega) {
		now := operatorDeployments(ctx, s.ns)
		changed := 0
		for name, gen := range before {
			if now[name] > gen {
				changed++
			}
		}
		g.Expect(changed).To(BeNumerically(">", 0), "no Deployment of %v changed by the upgraded operator", before)
	}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).Should(Succeed())
	names := make([]string, 0, len(before))
	for name := range before {
		names = append(names, name)
	}
	waitDeploymentsRolled(ctx, s.ns, names...)
	after := operatorDeployments(ctx, s.ns)
	var rolledNames []string
	for name, gen := range before {
		if after[name] > gen {
			rolledNames = append(rolledNames, name)
		}
	}
	GinkgoWriter.Printf("the upgrade rolled %d of %d Deployments: %v (all rolled %.1fs after the old process stopped)\n",
		len(rolledNames), len(before), rolledNames, time.Since(upgraded).Seconds())
	return len(rolledNames)
}}

// rolledDeployments are the Deployments a CR edit of crEditRollsDeployments rolls.
var rolledDeployments = []string{gatewayCR, batchCR + "-apiserver", batchCR + "-processor"}

// killPoint is where in a CR edit's rollout the operator is SIGKILLed, then started again: the
// operator's kill points under load. Each leaves the restarted operator a different part of the
// edit to act on, while the Deployment controller rolls what the killed one already wrote.
type killPoint int

const (
	// notKilled: the operator runs throughout.
	notKilled killPoint = iota
	// killedBeforeTheEdits: both CRs are edited while the operator is down; the restarted one
	// makes every write of the rollout.
	killedBeforeTheEdits
	// killedBetweenTheEdits: the Gateway's edit changed its Deployment, then the operator was
	// SIGKILLed and the LLMBatchGateway edited while it was down.
	killedBetweenTheEdits
	// killedMidRollout: both CRs edited, the operator SIGKILLed as soon as one of the
	// Deployments changed (how many had is logged).
	killedMidRollout
)

func (k killPoint) String() string {
	return [...]string{"", "operator SIGKILLed before the edits", "operator SIGKILLed between the two CRs' edits",
		"operator SIGKILLed as soon as one Deployment changed"}[k]
}

// deploymentGenerations are the generations of ns's Deployments names.
func deploymentGenerations(ctx context.Context, ns string, names []string) map[string]int64 {
	out := map[string]int64{}
	for _, name := range names {
		d, err := fw.kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		out[name] = d.Generation
	}
	return out
}

// waitDeploymentsChanged waits until at least n of the Deployments of before have a newer
// generation (polled every 20 ms, so that a kill point lands close to the write it follows), and
// returns how many had.
func waitDeploymentsChanged(ctx context.Context, ns string, before map[string]int64, n int) (changed int, err error) {
	err = InterceptGomegaFailure(func() {
		Eventually(func(g Gomega) {
			changed = 0
			for name, gen := range deploymentGenerations(ctx, ns, slices.Collect(maps.Keys(before))) {
				if gen > before[name] {
					changed++
				}
			}
			g.Expect(changed).To(BeNumerically(">=", n), "Deployments of %v changed by the edit", slices.Sorted(maps.Keys(before)))
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(20 * time.Millisecond).Should(Succeed())
	})
	return changed, err
}

// crEditRollsDeployments: the Gateway's and the LLMBatchGateway's resource requests edited (no
// limits here: the pods have no cgroups, so only the templates change): the gateway's, the
// batch apiserver's and the processor's Deployments roll, and every pod of theirs is replaced;
// with a kill point, the operator is SIGKILLed there and started again, and the rollout must
// complete as without it.
func crEditRollsDeployments(n int, kill killPoint) fault {
	phase := fmt.Sprintf("CR edited, Deployments rolled (%d)", n)
	if kill != notKilled {
		phase += ", " + kill.String()
	}
	return fault{phase: phase, inject: func(ctx context.Context, s *stack) int {
		generations := deploymentGenerations(ctx, s.ns, rolledDeployments)
		before := podState(ctx, s.ns)
		op := localOperator(leaseArgs())
		var killed time.Time
		sigkill := func() {
			killed = time.Now()
			Expect(op.Kill(ctx, runningOperator(op))).To(Succeed())
		}
		requests := map[string]any{"requests": map[string]any{"cpu": fmt.Sprintf("%dm", 100+n)}}
		if kill == killedBeforeTheEdits {
			sigkill()
		}
		mergePatch(ctx, s.gatewayCR, s.ns, map[string]any{"spec": map[string]any{"resources": requests}})
		if kill == killedBetweenTheEdits {
			_, err := waitDeploymentsChanged(ctx, s.ns, map[string]int64{gatewayCR: generations[gatewayCR]}, 1)
			Expect(err).NotTo(HaveOccurred())
			sigkill()
		}
		mergePatch(ctx, s.batchCR, s.ns, map[string]any{"spec": map[string]any{
			"apiServer": map[string]any{"resources": requests}, "processor": map[string]any{"resources": requests}}})
		if kill == killedMidRollout {
			changed, err := waitDeploymentsChanged(ctx, s.ns, generations, 1)
			Expect(err).NotTo(HaveOccurred())
			sigkill()
			GinkgoWriter.Printf("%s: %d of %d Deployments had changed\n", phase, changed, len(rolledDeployments))
		}
		if kill != notKilled {
			_, err := op.Start()
			Expect(err).NotTo(HaveOccurred())
			waitLeaseTaken(ctx, killed)
		}
		if _, err := waitDeploymentsChanged(ctx, s.ns, generations, len(rolledDeployments)); err != nil {
			// The operator did not act on the edit (seen once, right after a restart): its
			// goroutines into its log (SIGQUIT: Go's dump, then exit; the spec's cleanup starts
			// it again) to show where its syncs stand.
			_ = syscall.Kill(runningOperator(op).Pid, syscall.SIGQUIT)
			Fail(fmt.Sprintf("%v (the operator's goroutines are in %s)", err, filepath.Join(os.Getenv("LOCAL_CLUSTER_DIR"), "logs", "operator.log")))
		}
		waitDeploymentsRolled(ctx, s.ns, rolledDeployments...)
		after := podState(ctx, s.ns)
		replaced := 0
		for uid := range before {
			if _, ok := after[uid]; !ok {
				replaced++
			}
		}
		Expect(replaced).To(BeNumerically(">=", len(rolledDeployments)), "pods replaced by the rollout")
		return len(rolledDeployments)
	}}
}

// release is the operator a spec starts from.
type release int

const (
	// workingTree: the operator the suite runs, restarted with the spec's lease.
	workingTree release = iota
	// previousRelease: hack/upgrade/previous-ref's, which makes the stack; operatorUpgraded
	// replaces it.
	previousRelease
	// upstreamOperators: none of this project's; the stack is what the upstream operators make
	// (deployUpstreamStack), which switchedFromUpstream hands to this operator.
	upstreamOperators
	// upstreamLWSOperator: none of this project's; the LeaderWorkerSet controller is the one
	// openshift/lws-operator made (deployUnderLWSOperator), which switchedFromLWSOperator
	// replaces by this operator's.
	upstreamLWSOperator
)

// loadOps are the ops the load starts in turn for what it serves.
func loadOps(s *stack, what serving) []load.Op {
	// Through a Service: its chat completions alone. Else, in each batchEvery ops: a sync batch,
	// with MCP and async an MCP tool list, an async batch and an MCP tool call spread over the
	// cycle, chat completions (plain, streamed) between.
	if what == servingChatThroughService {
		return []load.Op{simChatOp(s.chat)}
	}
	ops := []load.Op{batchOp(s.api, "batch")}
	for i := 1; i < batchEvery; i++ {
		switch {
		case what == servingMCPAndAsync && i == batchEvery/4:
			ops = append(ops, mcpToolsOp(s.mcpGateway))
		case what == servingMCPAndAsync && i == batchEvery/2:
			ops = append(ops, batchOp(s.asyncAPI, "batch async"))
		case what == servingMCPAndAsync && i == 3*batchEvery/4:
			ops = append(ops, mcpCallOp(s.mcpServer))
		default:
			ops = append(ops, chatOp(s.gateway, i%2 == 0))
		}
	}
	return ops
}

// servingUnderFaults runs the load against a fresh stack made by the operator of from, and
// injects the faults in turn, each in its own phase after a quiet one; then a last quiet phase,
// and every accepted batch waited for. Every phase must have accepted batches and completed them
// all, and no request may fail.
func servingUnderFaults(ctx context.Context, ns string, from release, what serving, faults ...fault) {
	var s *stack
	switch from {
	case previousRelease:
		// The previous release first: the stack is made by its operator, as a user's was.
		withPreviousRelease(ctx)
		s = deployStack(ctx, namespace(ctx, ns), what)
	case upstreamOperators:
		Expect(what).To(Equal(servingChatAndSync), "the switch from upstream serves chat completions and sync batches")
		s = deployUpstreamStack(ctx, namespace(ctx, ns))
	case upstreamLWSOperator:
		Expect(what).To(Equal(servingChatThroughService), "the switch from openshift/lws-operator serves chat completions through the LeaderWorkerSet's Service")
		s = deployUnderLWSOperator(ctx, namespace(ctx, ns))
	default:
		s = deployStack(ctx, namespace(ctx, ns), what)
		withShortLease()
	}
	ops := loadOps(s, what)
	rec := load.NewRecorder(phaseQuiet)
	stop := make(chan struct{})
	done := make(chan int, 1)
	// The load's own context: the spec's ends when the spec does, the load is stopped (stop)
	// and waited for before.
	loadCtx, cancelLoad := context.WithCancel(context.Background())
	defer cancelLoad()
	go func() {
		defer GinkgoRecover()
		done <- load.Run(loadCtx, load.Bounds{Interval: loadInterval, Ops: loadMaxOps, Duration: loadMaxDuration}, rec, stop, ops...)
	}()
	waitPhaseRequests(ctx, rec, phaseRequests)
	// rolled: the Deployments each phase's fault rolled.
	rolled := map[string]int{}
	// ran: when each fault that stops a backing service ran.
	ran := map[string]window{}
	for _, f := range faults {
		By(f.phase + ", while the load runs")
		rec.SetPhase(f.phase)
		before := stackPods(ctx, s)
		from := time.Now()
		rolled[f.phase] = f.inject(ctx, s)
		if f.down != "" {
			ran[f.phase] = window{from, time.Now()}
		}
		// The requests of this window, sent after the fault is over, meet what follows it: the
		// restarted operator's first sync of every CR, the new pods. It also keeps the next
		// fault from racing the restarted operator's start: a CR edited within a fraction of a
		// second of the new leader taking the lease was once not acted on for over a minute
		// (see docs/reliability.md, serving under faults).
		waitPhaseRequests(ctx, rec, phaseRequests)
		after := stackPods(ctx, s)
		GinkgoWriter.Printf("%s: %d operand pods replaced or restarted\n", f.phase, podsChanged(before, after))
		// Neither the operator's faults nor a backing service's short restart may replace or
		// restart a pod (the real-pod agent runs the liveness probes the operator renders).
		if f.operator || f.down != "" {
			Expect(after).To(Equal(before), "%s: operand pods replaced or restarted", f.phase)
		}
	}
	By("a last window of quiet, then waiting for every accepted batch")
	rec.SetPhase(phaseAfterAll)
	waitPhaseRequests(ctx, rec, phaseRequests)
	close(stop)
	var started int
	Eventually(done).WithTimeout(batchDeadline + time.Minute).Should(Receive(&started))

	reports := rec.Report()
	var table strings.Builder
	Expect(load.WriteTable(&table, reports)).To(Succeed())
	GinkgoWriter.Printf("serving under faults: %d ops started every %s (a batch of %d requests in %d)\n%s",
		started, loadInterval, batchRequests, batchEvery, table.String())
	AddReportEntry("serving under faults", table.String())
	// A rollout replaces the pods: the keep-alive races of their ends are counted apart.
	// A backing service's restart: the 500s while it was down are counted apart.
	raced, whileDown := map[string]int{}, map[string]int{}
	for phase, w := range ran {
		ran[phase] = untilRecovered(rec.Outcomes(), phase, w)
	}
	for _, o := range rec.Outcomes() {
		if rolled[o.Phase] > 0 && errors.As(o.Err, new(keepAliveRace)) {
			raced[o.Phase]++
		}
		if w, ok := ran[o.Phase]; ok && answeredWhileDown(o, w) {
			whileDown[o.Phase]++
		}
	}
	for _, p := range reports {
		if what != servingChatThroughService {
			Expect(p.Accepted).To(BeNumerically(">", 0), "phase %q accepted no batch", p.Phase)
		}
		Expect(p.Completed).To(Equal(p.Accepted), "phase %q: accepted batches lost: %v", p.Phase, p.Lost)
		Expect(p.Failed-raced[p.Phase]-whileDown[p.Phase]).To(BeZero(), "phase %q: failed requests: %v", p.Phase, p.Errors)
		if whileDown[p.Phase] > 0 {
			GinkgoWriter.Printf("phase %q: %d of %d requests answered 500 while the backing service was down or the gateway's connections to it were made again (%.1fs)\n",
				p.Phase, whileDown[p.Phase], p.Sent, ran[p.Phase].to.Sub(ran[p.Phase].from).Seconds())
		}
		if raced[p.Phase] > 0 {
			GinkgoWriter.Printf("phase %q: %d of %d requests met a pod's end on a reused keep-alive connection (EOF)\n", p.Phase, raced[p.Phase], p.Sent)
		}
		// Each old pod ends once, and only the requests sent at that instant on one of its idle
		// connections meet it: at most one per Deployment the rollout replaces (observed: 1, in 2
		// of 8 short runs). More would be something else than this race.
		Expect(raced[p.Phase]).To(BeNumerically("<=", rolled[p.Phase]), "phase %q: more keep-alive races than Deployments rolled (%d): %v", p.Phase, rolled[p.Phase], p.Errors)
	}
}

var _ = Describe("Serving under faults on real pods", Ordered, Label("faults"), func() {
	// The short form (make ci): the stack made by the previous release's operator, which is
	// upgraded, then SIGKILLed, then a CR edit rolls the Deployments; one stack for the three.
	It("loses no chat completion or batch while the operator is upgraded from the previous release, SIGKILLed, or while a CR edit rolls the Deployments", Label("short"), func(ctx SpecContext) {
		servingUnderFaults(ctx, "operands-load-short", previousRelease, servingChatAndSync, operatorUpgraded, operatorKilled, crEditRollsDeployments(1, notKilled))
	})

	// The full form adds MCP and async batches (the short one builds no async processor, and the
	// previous release's stack makes none).
	It("loses no chat completion, MCP tool list or call, sync or async batch while the API server restarts, the leader is killed with a standby waiting, or four CR edits roll the Deployments, the operator SIGKILLed before, between and during three of them", func(ctx SpecContext) {
		// The kill points before leaderKilled: after it the suite's operator process (the one
		// they SIGKILL) is the standby, and the second process leads.
		servingUnderFaults(ctx, "operands-load-full", workingTree, servingMCPAndAsync, apiServerRestarted,
			crEditRollsDeployments(1, notKilled), crEditRollsDeployments(2, killedBeforeTheEdits),
			crEditRollsDeployments(3, killedBetweenTheEdits), crEditRollsDeployments(4, killedMidRollout), leaderKilled)
	})

	It("loses none while the batch gateway's Redis or PostgreSQL restarts", Label("backing"), func(ctx SpecContext) {
		servingUnderFaults(ctx, "operands-load-backing", workingTree, servingChatAndSync, backingServiceRestarted("redis"), backingServiceRestarted("postgresql"))
	})

	// The Gateway and the sync LLMBatchGateway served by what the upstream operators made for
	// them (switching_load_test.go), then this operator started: adopted and rolled.
	It("loses no chat completion or batch while this operator takes over the Gateway and the LLMBatchGateway from the upstream operators' objects", Label("switching"), func(ctx SpecContext) {
		servingUnderFaults(ctx, "operands-load-switching", upstreamOperators, servingChatAndSync, switchedFromUpstream)
	})

	// A user's LeaderWorkerSet served under the controller openshift/lws-operator made, then the
	// README's switch to this operator's (switching_lws_load_test.go).
	It("loses no chat completion through a LeaderWorkerSet's Service while its controller is switched from openshift/lws-operator's to this operator's", Label("switching"), func(ctx SpecContext) {
		servingUnderFaults(ctx, "operands-load-switching-lws", upstreamLWSOperator, servingChatThroughService, switchedFromLWSOperator)
	})
})
