package operands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

const agentCR = "google-calendar-agent"

// servedCard is the card google-calendar-agent v0.5.2 serves (hack/operands/sources.tsv): its
// .well-known/agent-card.json at commit 574698702c8c, whose name, version and description main.go
// sets again from its own defaults, and whose url it sets from A2A_AGENT_URL.
var servedCard = v1alpha1.Card{
	Name:               "google-calendar-agent",
	Version:            "0.5.2",
	Description:        "A Google Calendar A2A agent for AI assistants to interact with Google Calendar",
	DefaultInputModes:  []string{"text"},
	DefaultOutputModes: []string{"text"},
	Capabilities:       v1alpha1.CapabilitiesSpec{Streaming: true},
	Skills: v1alpha1.SkillsList{{
		ID:          "schedule-meeting",
		Name:        "schedule-meeting",
		Description: "Use this when the user asks to schedule a meeting, book a slot, or find a time that works. Resolves a conflict-free booking by finding open slots, validating no overlap, and creating the event.",
		Tags:        []string{"calendar", "scheduling", "meeting"},
	}},
}

// agentStatusCard is the Agent's status.card as it is now.
func agentStatusCard(g Gomega, ctx context.Context, agent *unstructured.Unstructured, ns string) v1alpha1.Card {
	live, err := resource(agent, ns).Get(ctx, agent.GetName(), metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	var a v1alpha1.Agent
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &a)).To(Succeed())
	return a.Status.Card
}

// a2a sends one JSON-RPC request to the agent's A2A endpoint and decodes its result.
func a2a(ctx context.Context, agentURL, method string, params, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		return err
	}
	code, data, err := do(ctx, http.MethodPost, agentURL+"/a2a", jsonHeader(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("%s: %d %s", method, code, data)
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("%s: %w: %s", method, err, data)
	}
	if r.Error != nil {
		return fmt.Errorf("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
	}
	return json.Unmarshal(r.Result, result)
}

// a2aTask is the part of an A2A task the spec reads.
type a2aTask struct {
	ID     string `json:"id"`
	Status struct {
		State   string `json:"state"`
		Message *struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"message"`
	} `json:"status"`
}

var _ = Describe("Agent on real pods", Ordered, func() {
	var ns, agentURL string
	var agent *unstructured.Unstructured

	BeforeAll(func(ctx SpecContext) {
		ns = namespace(ctx, "operands-agent")
		objs, err := render("agent.yaml", map[string]string{"NAMESPACE": ns})
		Expect(err).NotTo(HaveOccurred())
		agent = byKind(objs, "Agent", agentCR)
		apply(ctx, ns, objs...)
	})

	It("reads the card the agent serves into its status: name, version, skills", Label("short"), func(ctx SpecContext) {
		// Upstream's Ready: True (CardFetched) once the operator has read the card from the
		// agent's Service.
		waitCondition(ctx, agent, ns, "Ready")
		Expect(condition(Default, ctx, agent, ns, "Ready")).To(HaveKeyWithValue("reason", "CardFetched"))
		agentURL = serviceURL(ctx, ns, agentCR, 8080, "http")

		// The card the program serves, read here from its Service: upstream's, with the URL the
		// operator gave it (A2A_AGENT_URL).
		code, body, err := do(ctx, http.MethodGet, agentURL+"/.well-known/agent-card.json", nil, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusOK), string(body))
		var served v1alpha1.Card
		Expect(json.Unmarshal(body, &served)).To(Succeed())
		want := servedCard
		want.URL = fmt.Sprintf("http://%s.%s.svc.cluster.local:8080", agentCR, ns)
		Expect(served).To(Equal(want), "the card google-calendar-agent serves")

		// The status holds that card, and the skills' names the operator computes.
		want.SkillsNames = "schedule-meeting"
		Eventually(func(g Gomega) {
			g.Expect(agentStatusCard(g, ctx, agent, ns)).To(Equal(want))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		// Issue 33: the agent runs with a read-only root and no writable volume (its /app is the
		// image's files, read-only).
		Expect(expectWritableOnlyAtVolumes(ctx, ns)).To(HaveKeyWithValue(HavePrefix(agentCR+"-"), BeEmpty()))
		GinkgoWriter.Printf("Agent %s/%s: card %s %s, skills %v, url %s\n", ns, agentCR, want.Name, want.Version, want.SkillsNames, want.URL)
	})

	// The agent sends its calendar tools with every chat completion, and llm-d-inference-sim
	// v0.10.2 validates tool definitions against a schema of its own that has no `minimum` or
	// `maximum` (list_calendar_events's limit and maxResults have them): the simulator answers
	// 400 through the Gateway and the task fails. So this spec checks that the task went agent ->
	// Gateway -> simulator and failed for exactly that reason; the day a task completes, it fails
	// and says to expect the answer instead.
	It("sends a task over A2A to its LLM, the simulator behind a Gateway, which refuses the agent's tool schemas", func(ctx SpecContext) {
		// The Agent's LLM is simple-gateway of this namespace (agent.yaml), with the simulator
		// behind it: both from the gateway sample.
		_, gw := deployGatewaySample(ctx, ns, nil)
		eventuallyChat(ctx, gw, nil, "gateway up")
		if agentURL == "" {
			waitCondition(ctx, agent, ns, "Ready")
			agentURL = serviceURL(ctx, ns, agentCR, 8080, "http")
		}
		var task a2aTask
		Expect(a2a(ctx, agentURL, "message/send", map[string]any{
			"message": map[string]any{
				"messageId": "operands-1", "role": "user",
				"parts": []map[string]any{{"text": "list my meetings"}},
			},
		}, &task)).To(Succeed())
		Expect(task.ID).NotTo(BeEmpty())
		Eventually(func(g Gomega) {
			g.Expect(a2a(ctx, agentURL, "tasks/get", map[string]any{"id": task.ID}, &task)).To(Succeed())
			// ADK v0.24's task states (A2A's enum names); input-required ends a turn too.
			g.Expect(task.Status.State).To(BeElementOf("TASK_STATE_COMPLETED", "TASK_STATE_FAILED",
				"TASK_STATE_REJECTED", "TASK_STATE_CANCELLED", "TASK_STATE_INPUT_REQUIRED"))
		}).WithContext(ctx).WithTimeout(readyTimeout).WithPolling(poll).Should(Succeed())
		var message string
		if m := task.Status.Message; m != nil {
			for _, p := range m.Parts {
				message += p.Text
			}
		}
		GinkgoWriter.Printf("A2A task %s: %s, %q\n", task.ID, task.Status.State, message)
		Expect(task.Status.State).NotTo(Equal("TASK_STATE_COMPLETED"),
			"the task completed: the simulator takes the agent's tools now; make this spec expect the answer (%q)", message)
		Expect(task.Status.State).To(Equal("TASK_STATE_FAILED"))
		// The simulator's own refusal, relayed by the Gateway to the agent.
		Expect(message).To(ContainSubstring("Tool validation failed"))
		// A keyword of the agent's tool parameters (minimum, maximum) that its schema lacks; which
		// tool it names first varies.
		Expect(message).To(MatchRegexp(`additionalProperties ('(minimum|maximum)'(, )?)+ not allowed`))
	})
})
