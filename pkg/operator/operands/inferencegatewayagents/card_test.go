package inferencegatewayagents

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

const testCard = `{"name": "calendar", "version": "1.0.0", "description": "d", "url": "http://calendar:8080",
  "capabilities": {"streaming": true}, "skills": {"id": "s1", "name": "Only skill", "description": "one skill, not a list"}}`

// cardAgent is an agent server for the fetcher's tests: it answers card on path, counts the
// requests and records the Host header.
type cardAgent struct {
	*httptest.Server
	mu       sync.Mutex
	path     string
	card     string
	status   int
	hosts    []string
	requests atomic.Int32
	hold     chan struct{}
}

func newCardAgent(t *testing.T, path, card string) *cardAgent {
	a := &cardAgent{path: path, card: card, status: http.StatusOK}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.requests.Add(1)
		a.mu.Lock()
		a.hosts = append(a.hosts, r.Host)
		path, card, status, hold := a.path, a.card, a.status, a.hold
		a.mu.Unlock()
		if hold != nil {
			<-hold
		}
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(card))
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *cardAgent) set(path, card string, status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.path, a.card, a.status = path, card, status
}

func (a *cardAgent) target(revision string) CardTarget {
	return CardTarget{BaseURL: "http://calendar.agents.svc.cluster.local:8080", Address: strings.TrimPrefix(a.URL, "http://"), Revision: revision}
}

// runFetcher starts a fetcher whose notifications land in a channel.
func runFetcher(t *testing.T, cfg CardFetcherConfig) (*CardFetcher, chan string) {
	t.Helper()
	notified := make(chan string, 100)
	f := NewCardFetcher(cfg, func(key string) { notified <- key })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go f.Run(ctx)
	return f, notified
}

// resultOf waits until the fetcher has a result for key and target.
func resultOf(t *testing.T, f *CardFetcher, key string, target CardTarget) CardResult {
	t.Helper()
	var result CardResult
	enginetest.WaitFor(t, "a card result for "+key, func() bool {
		r, ok := f.Want(key, target)
		result = r
		return ok
	})
	return result
}

func TestCardFetcherReadsTheCard(t *testing.T) {
	agent := newCardAgent(t, CardPaths[0], testCard)
	f, notified := runFetcher(t, CardFetcherConfig{})
	target := agent.target("1")
	if _, ok := f.Want("agents/calendar", target); ok {
		t.Fatal("a result before any read")
	}
	result := resultOf(t, f, "agents/calendar", target)
	if result.Err != nil {
		t.Fatalf("read failed: %v", result.Err)
	}
	if result.Card.Name != "calendar" || !result.Card.Capabilities.Streaming || len(result.Card.Skills) != 1 || result.Card.SkillsNames != "Only skill" {
		t.Errorf("card %+v", result.Card)
	}
	if got := <-notified; got != "agents/calendar" {
		t.Errorf("notified %q", got)
	}
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if agent.hosts[0] != "calendar.agents.svc.cluster.local:8080" {
		t.Errorf("Host %q: the request must name the agent, not the address it went to", agent.hosts[0])
	}
}

func TestCardFetcherFallsBackToTheLegacyPath(t *testing.T) {
	agent := newCardAgent(t, CardPaths[1], testCard)
	f, _ := runFetcher(t, CardFetcherConfig{})
	result := resultOf(t, f, "agents/calendar", agent.target("1"))
	if result.Err != nil || result.Card.Version != "1.0.0" {
		t.Fatalf("result %+v", result)
	}
}

// TestCardFetcherRetriesWithBackOff: a failed read is the condition's message, naming the last
// URL tried; reads go on with growing waits, and the first success is noticed.
func TestCardFetcherRetriesWithBackOff(t *testing.T) {
	agent := newCardAgent(t, "/nowhere", "")
	f, notified := runFetcher(t, CardFetcherConfig{RetryBase: 20 * time.Millisecond, RetryMax: 40 * time.Millisecond})
	target := agent.target("1")
	result := resultOf(t, f, "agents/calendar", target)
	want := "http://calendar.agents.svc.cluster.local:8080/.well-known/agent.json: unexpected status: 404 Not Found"
	if result.Err == nil || result.Err.Error() != want {
		t.Fatalf("error %v, want %q", result.Err, want)
	}
	<-notified
	enginetest.WaitFor(t, "three reads (both paths each)", func() bool { return agent.requests.Load() >= 6 })
	select {
	case key := <-notified:
		t.Errorf("notified %q although the result did not change", key)
	default:
	}
	agent.set(CardPaths[0], testCard, http.StatusOK)
	enginetest.WaitFor(t, "the card after the retries", func() bool {
		r, _ := f.Want("agents/calendar", target)
		return r.Err == nil && r.Card != nil
	})
	if got := <-notified; got != "agents/calendar" {
		t.Errorf("notified %q", got)
	}
}

// TestCardFetcherTimesOut: an agent that never answers is a failed read after the timeout, and
// does not hold up another agent's read.
func TestCardFetcherTimesOut(t *testing.T) {
	stuck := newCardAgent(t, CardPaths[0], testCard)
	stuck.hold = make(chan struct{})
	t.Cleanup(func() { close(stuck.hold) })
	fine := newCardAgent(t, CardPaths[0], testCard)
	f, _ := runFetcher(t, CardFetcherConfig{Timeout: 200 * time.Millisecond, Workers: 2})
	f.Want("agents/stuck", stuck.target("1"))
	if r := resultOf(t, f, "agents/fine", fine.target("1")); r.Err != nil {
		t.Fatalf("the other agent: %v", r.Err)
	}
	r := resultOf(t, f, "agents/stuck", stuck.target("1"))
	if r.Err == nil || !strings.Contains(r.Err.Error(), "Client.Timeout") {
		t.Errorf("error %v, want a timeout", r.Err)
	}
}

// TestCardFetcherNewTargetReadsAgain: another revision (a rollout) reads the card again at once;
// the old result is not handed out for it.
func TestCardFetcherNewTargetReadsAgain(t *testing.T) {
	agent := newCardAgent(t, CardPaths[0], testCard)
	f, _ := runFetcher(t, CardFetcherConfig{})
	resultOf(t, f, "agents/calendar", agent.target("1"))
	agent.set(CardPaths[0], strings.Replace(testCard, "1.0.0", "2.0.0", 1), http.StatusOK)
	if _, ok := f.Want("agents/calendar", agent.target("2")); ok {
		t.Fatal("the result of revision 1 was handed out for revision 2")
	}
	if r := resultOf(t, f, "agents/calendar", agent.target("2")); r.Card.Version != "2.0.0" {
		t.Errorf("version %q after the rollout", r.Card.Version)
	}
}

// TestCardFetcherRefreshes: a read card is read again after Refresh, and a change is noticed.
func TestCardFetcherRefreshes(t *testing.T) {
	agent := newCardAgent(t, CardPaths[0], testCard)
	f, notified := runFetcher(t, CardFetcherConfig{Refresh: 50 * time.Millisecond})
	target := agent.target("1")
	resultOf(t, f, "agents/calendar", target)
	<-notified
	agent.set(CardPaths[0], strings.Replace(testCard, "1.0.0", "1.0.1", 1), http.StatusOK)
	enginetest.WaitFor(t, "the refreshed card", func() bool {
		r, _ := f.Want("agents/calendar", target)
		return r.Card != nil && r.Card.Version == "1.0.1"
	})
	if got := <-notified; got != "agents/calendar" {
		t.Errorf("notified %q", got)
	}
}

// TestCardFetcherForget: a forgotten agent's result is dropped, so an agent asked for again
// (recreated under the same name) never gets its predecessor's card.
func TestCardFetcherForget(t *testing.T) {
	agent := newCardAgent(t, CardPaths[0], testCard)
	f, _ := runFetcher(t, CardFetcherConfig{})
	target := agent.target("1")
	resultOf(t, f, "agents/calendar", target)
	f.Forget("agents/calendar")
	if f.Len() != 0 {
		t.Fatalf("%d agents kept", f.Len())
	}
	if _, ok := f.Want("agents/calendar", target); ok {
		t.Error("the forgotten agent's result was handed out")
	}
}

// TestCardFetcherBoundsTheBody: an answer larger than a card is not read whole.
func TestCardFetcherBoundsTheBody(t *testing.T) {
	huge := `{"name": "` + strings.Repeat("a", maxCardBytes+1) + `"}`
	// Served at the legacy path, the last one tried, whose error the result keeps.
	agent := newCardAgent(t, CardPaths[1], huge)
	f, _ := runFetcher(t, CardFetcherConfig{})
	r := resultOf(t, f, "agents/calendar", agent.target("1"))
	if r.Err == nil || !strings.Contains(r.Err.Error(), "not an agent card") {
		t.Errorf("error %v", r.Err)
	}
}
