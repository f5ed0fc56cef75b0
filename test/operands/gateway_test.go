package operands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/llm-infra/llm-infra-operator/test/internal/load"
)

const (
	gatewayCR    = "simple-gateway"
	mcpGatewayCR = "mcp-gateway"
	simModel     = "openai/sim-model"
)

// deployGatewaySample applies the run-local inference sample (Gateway and MCP) into ns, with the
// batch sample's model server in the same namespace, patch applied to the Gateway.
func deployGatewaySample(ctx context.Context, ns string, patch func(*unstructured.Unstructured)) (*unstructured.Unstructured, string) {
	batch, err := render("batch-gateway.yaml", map[string]string{"NAMESPACE": ns})
	Expect(err).NotTo(HaveOccurred())
	apply(ctx, ns, byKind(batch, "Deployment", "vllm-sim"), byKind(batch, "Service", "vllm-sim"))
	objs, err := render("inference-gateway.yaml", map[string]string{"NAMESPACE": ns, "BATCH_NAMESPACE": ns})
	Expect(err).NotTo(HaveOccurred())
	gw := byKind(objs, "Gateway", gatewayCR)
	if patch != nil {
		patch(gw)
	}
	apply(ctx, ns, objs...)
	waitDeploymentReady(ctx, ns, "vllm-sim")
	waitCondition(ctx, gw, ns, "Available")
	return gw, serviceURL(ctx, ns, gatewayCR, 8080, "http")
}

type chatResponse struct {
	Choices []struct {
		Message struct{ Content string }
	}
}

func chatRequest(text string, stream bool) []byte {
	body, _ := json.Marshal(map[string]any{
		"model": simModel, "stream": stream, "max_tokens": 32,
		"messages": []map[string]string{{"role": "user", "content": text}},
	})
	return body
}

// chat sends one chat completion and returns the status, the answer's text and the body.
func chat(ctx context.Context, gw string, header http.Header, text string) (int, string, []byte, error) {
	h := jsonHeader()
	for k, v := range header {
		h[k] = v
	}
	code, body, err := do(ctx, http.MethodPost, gw+"/v1/chat/completions", h, bytes.NewReader(chatRequest(text, false)))
	if err != nil || code != http.StatusOK {
		return code, "", body, err
	}
	var r chatResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return code, "", body, fmt.Errorf("%w: %s", err, body)
	}
	if len(r.Choices) == 0 {
		return code, "", body, fmt.Errorf("no choices: %s", body)
	}
	return code, r.Choices[0].Message.Content, body, nil
}

// eventuallyChat waits until the gateway answers a chat completion (the provider's models are
// listed at start-up; the first requests may arrive before).
func eventuallyChat(ctx context.Context, gw string, header http.Header, text string) string {
	var answer string
	Eventually(func(g Gomega) {
		code, a, body, err := chat(ctx, gw, header, text)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(code).To(Equal(http.StatusOK), string(body))
		answer = a
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	return answer
}

// mcpTools lists the tools the gateway exposes from its MCP servers.
func mcpTools(ctx context.Context, gw string) ([]string, error) {
	code, body, err := do(ctx, http.MethodGet, gw+"/v1/mcp/tools", nil, nil)
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("%d %s", code, body)
	}
	return load.ParseMCPTools(body)
}

var _ = Describe("Inference gateway on real pods", Ordered, func() {
	var ns, gw string
	var cr *unstructured.Unstructured

	BeforeAll(func(ctx SpecContext) {
		ns = namespace(ctx, "operands-gateway")
		cr, gw = deployGatewaySample(ctx, ns, nil)
	})

	It("lists the provider's models and answers a chat completion", Label("short"), func(ctx SpecContext) {
		answer := eventuallyChat(ctx, gw, nil, "hello gateway")
		// llm-d-inference-sim in echo mode answers with the request's text.
		Expect("hello gateway").To(HavePrefix(strings.TrimSpace(answer)))
		Expect(answer).NotTo(BeEmpty())
		code, body, err := do(ctx, http.MethodGet, gw+"/v1/models", nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusOK))
		Expect(string(body)).To(ContainSubstring(simModel))
		GinkgoWriter.Printf("chat completion through %s: %q\n", gw, answer)
		// Issue 33: the gateway runs with a read-only root and no writable volume.
		Expect(expectWritableOnlyAtVolumes(ctx, ns)).To(HaveKeyWithValue(HavePrefix(gatewayCR+"-"), BeEmpty()))
	})

	It("lists the tools of an npx MCP server discovered from an MCP CR", Label("short"), func(ctx SpecContext) {
		mcp := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.inference-gateway.com/v1alpha1", "kind": "MCP", "metadata": map[string]any{"name": "mcp-everything"}}}
		waitCondition(ctx, mcp, ns, "Available")
		// The sample's second Gateway discovers the MCP server (the first serves chat: see the
		// sample's header for why not both).
		mcpGW := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "core.inference-gateway.com/v1alpha1", "kind": "Gateway", "metadata": map[string]any{"name": mcpGatewayCR}}}
		waitCondition(ctx, mcpGW, ns, "Available")
		gw := serviceURL(ctx, ns, mcpGatewayCR, 8080, "http")
		var tools []string
		Eventually(func(g Gomega) {
			var err error
			tools, err = mcpTools(ctx, gw)
			g.Expect(err).NotTo(HaveOccurred())
			// @modelcontextprotocol/server-everything's tool echo, which the gateway names
			// mcp_<tool>.
			g.Expect(tools).To(ContainElement("mcp_echo"))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		GinkgoWriter.Printf("MCP tools through %s: %v\n", gw, tools)

		// Defect 3: npx on node:lts crashed as user 65532 (no writable HOME or npm cache). The
		// server's processes on this machine (npx, then node) run as the pod's user, not root:
		// 65532 on Kubernetes, the one the SCC assigned from the namespace's range on OpenShift.
		pods, err := fw.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=mcp-server,app.kubernetes.io/instance=mcp-everything"})
		Expect(err).NotTo(HaveOccurred())
		Expect(pods.Items).NotTo(BeEmpty())
		for _, pod := range pods.Items {
			// The pod's user: the pod's, or its one container's (where SCC admission puts it).
			Expect(pod.Spec.Containers).To(HaveLen(1))
			var runAs *int64
			if sc := pod.Spec.SecurityContext; sc != nil {
				runAs = sc.RunAsUser
			}
			if sc := pod.Spec.Containers[0].SecurityContext; sc != nil && sc.RunAsUser != nil {
				runAs = sc.RunAsUser
			}
			Expect(runAs).NotTo(BeNil(), "pod %s has no user", pod.Name)
			user := int(*runAs)
			if !fw.scc {
				Expect(user).To(Equal(65532), "pod %s", pod.Name)
			}
			procs := podProcesses(pod.Name)
			Expect(procs).NotTo(BeEmpty(), "no process of pod %s on this machine", pod.Name)
			var server bool
			for _, p := range procs {
				Expect(p.uid).To(Equal(user), "process %d (%s) of pod %s", p.pid, p.cmdline, pod.Name)
				server = server || strings.Contains(p.cmdline, "server-everything")
			}
			Expect(server).To(BeTrue(), "no server-everything process among %v", procs)
			GinkgoWriter.Printf("MCP pod %s: %d processes, all uid %d; its home holds %d bytes (npx's cache and package)\n",
				pod.Name, len(procs), user, dirSize(filepath.Join("/proc", fmt.Sprint(procs[0].pid), "root/home/mcp")))
		}
		// Issue 33: npx and the server write only to the MCP's home (an emptyDir), the
		// Gateways nowhere; every root is read-only.
		writable := expectWritableOnlyAtVolumes(ctx, ns)
		for _, pod := range pods.Items {
			Expect(writable[pod.Name]).To(ContainElement("/home/mcp"), "pod %s", pod.Name)
		}
	})

	It("streams a chat completion", func(ctx SpecContext) {
		eventuallyChat(ctx, gw, nil, "warm up")
		code, body, err := do(ctx, http.MethodPost, gw+"/v1/chat/completions", jsonHeader(), bytes.NewReader(chatRequest("stream me", true)))
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusOK), string(body))
		var chunks int
		var text strings.Builder
		sc := bufio.NewScanner(bytes.NewReader(body))
		done := false
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			if line == "[DONE]" {
				done = true
				continue
			}
			var c struct {
				Choices []struct {
					Delta struct{ Content string }
				}
			}
			Expect(json.Unmarshal([]byte(line), &c)).To(Succeed(), line)
			chunks++
			if len(c.Choices) > 0 {
				text.WriteString(c.Choices[0].Delta.Content)
			}
		}
		Expect(done).To(BeTrue(), "no [DONE] in %s", body)
		Expect(chunks).To(BeNumerically(">", 1))
		Expect("stream me").To(HavePrefix(strings.TrimSpace(text.String())))
	})

	It("serves Prometheus metrics on the rendered metrics port", func(ctx SpecContext) {
		eventuallyChat(ctx, gw, nil, "count me")
		metrics := serviceURL(ctx, ns, gatewayCR, 9464, "http") + "/metrics"
		Eventually(func(g Gomega) {
			code, body, err := do(ctx, http.MethodGet, metrics, nil, nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(http.StatusOK))
			// v0.48.2 exports OpenTelemetry's GenAI metrics: the chat completions counted per model.
			g.Expect(string(body)).To(MatchRegexp(`(?m)^gen_ai_server_request_duration_seconds_count\{[^}]*gen_ai_request_model="openai/sim-model"[^}]*\} [1-9]`))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	})

	It("enforces OIDC: no token 401, the issuer's token 200", func(ctx SpecContext) {
		secret := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "oidc-client"},
			"stringData": map[string]any{"client-secret": fw.services["OIDC_CLIENT_SECRET"]},
		}}
		apply(ctx, ns, secret)
		Expect(unstructured.SetNestedField(cr.Object, map[string]any{
			"enabled":  true,
			"provider": "oidc",
			"oidc": map[string]any{
				"issuerUrl":       fw.services["OIDC_ISSUER"],
				"clientId":        fw.services["OIDC_CLIENT_ID"],
				"clientSecretRef": map[string]any{"name": "oidc-client", "key": "client-secret"},
			},
		}, "spec", "auth")).To(Succeed())
		apply(ctx, ns, cr)
		DeferCleanup(func(ctx SpecContext) {
			unstructured.RemoveNestedField(cr.Object, "spec", "auth")
			apply(ctx, ns, cr)
			waitRolledOut(ctx, ns)
		})
		waitRolledOut(ctx, ns)
		Eventually(func(g Gomega) {
			code, _, body, err := chat(ctx, gw, nil, "no token")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(code).To(Equal(http.StatusUnauthorized), string(body))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		token := oidcToken(ctx)
		answer := eventuallyChat(ctx, gw, http.Header{"Authorization": {"Bearer " + token}}, "with token")
		Expect(answer).NotTo(BeEmpty())
		code, _, body, err := chat(ctx, gw, http.Header{"Authorization": {"Bearer " + token + "x"}}, "bad token")
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusUnauthorized), string(body))
	})

	It("stops the gateway's processes when the Gateway is deleted", func(ctx SpecContext) {
		eventuallyChat(ctx, gw, nil, "last words")
		Expect(resource(cr, ns).Delete(ctx, cr.GetName(), metav1.DeleteOptions{})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(podUIDs(ctx, ns, "app="+gatewayCR)).To(BeEmpty())
			_, _, err := do(ctx, http.MethodGet, gw+"/health", nil, nil)
			g.Expect(err).To(HaveOccurred(), "the gateway still answers on %s", gw)
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
	})
})

// waitRolledOut waits until the Gateway's Deployment runs its latest template and is Available.
func waitRolledOut(ctx context.Context, ns string) {
	Eventually(func(g Gomega) {
		d, err := fw.kube.AppsV1().Deployments(ns).Get(ctx, gatewayCR, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(d.Status.ObservedGeneration).To(Equal(d.Generation))
		g.Expect(d.Status.UpdatedReplicas).To(Equal(*d.Spec.Replicas))
		g.Expect(d.Status.Replicas).To(Equal(*d.Spec.Replicas))
		g.Expect(d.Status.ReadyReplicas).To(Equal(*d.Spec.Replicas))
	}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
}

// oidcToken: client_credentials at the services' OIDC issuer.
func oidcToken(ctx context.Context) string {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {fw.services["OIDC_CLIENT_ID"]}, "client_secret": {fw.services["OIDC_CLIENT_SECRET"]}}
	code, body, err := do(ctx, http.MethodPost, fw.services["OIDC_HOST_URL"]+"/token",
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader(form.Encode()))
	Expect(err).NotTo(HaveOccurred())
	Expect(code).To(Equal(http.StatusOK), string(body))
	var t struct {
		IDToken string `json:"id_token"`
	}
	Expect(json.Unmarshal(body, &t)).To(Succeed())
	Expect(t.IDToken).NotTo(BeEmpty(), string(body))
	return t.IDToken
}
