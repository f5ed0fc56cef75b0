package inferencegatewayagents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

// CardPaths are the well-known paths of an A2A agent card, tried in order: the current one, then
// the legacy one.
var CardPaths = []string{"/.well-known/agent-card.json", "/.well-known/agent.json"}

// maxCardBytes bounds how much of an answer is read: a card is a few kilobytes, and status.card
// must fit in the object.
const maxCardBytes = 1 << 20

// CardTarget is where one Agent's card is read from.
type CardTarget struct {
	// BaseURL is the agent's URL in the cluster (AgentURL), which conditions name and which the
	// request carries as its Host.
	BaseURL string
	// Address is the host:port the request connects to: the Service's cluster IP and port, so
	// reading a card needs no DNS lookup.
	Address string
	// Revision changes when the agent may serve another card (its Deployment rolled out): a
	// new revision reads the card again at once.
	Revision string
}

// CardResult is the outcome of the last read of a target's card.
type CardResult struct {
	// Card is the card read, with skillsNames filled in; nil when the read failed.
	Card *v1alpha1.Card
	// Err says why the read failed: the last URL tried and what went wrong (never a body).
	Err error
}

// CardFetcherConfig tunes a CardFetcher; zero values take the defaults.
type CardFetcherConfig struct {
	// Timeout bounds one HTTP request (5s, upstream's).
	Timeout time.Duration
	// Refresh is how long a read card stands before it is read again (5m).
	Refresh time.Duration
	// RetryBase and RetryMax bound the exponential back-off of a failed read (1s to 5m).
	RetryBase, RetryMax time.Duration
	// Workers read cards at once (4).
	Workers int
	// Transport carries the requests (http.DefaultTransport's clone).
	Transport http.RoundTripper
	// Exists says whether the Agent of a key still exists; a worker drops one that does not
	// (the sync of a deleted Agent never runs to Forget it). Nil: always.
	Exists func(key string) bool
}

// CardFetcher reads Agents' cards over HTTP, beside the syncs so that none waits for an agent: a
// sync says which card it wants (Want) and gets the last result, the fetcher's workers read the
// card with a timeout and, when the result changed, call notify with the Agent's key, so that
// the next sync writes it into status. A failed read is retried with exponential back-off; a card
// read is read again every Refresh, and at once when the target changes.
type CardFetcher struct {
	cfg    CardFetcherConfig
	client *http.Client
	notify func(key string)
	queue  workqueue.TypedRateLimitingInterface[string]

	mu      sync.Mutex
	targets map[string]CardTarget
	results map[string]CardResult
}

// NewCardFetcher builds a fetcher; notify receives the key of an Agent whose result changed.
func NewCardFetcher(cfg CardFetcherConfig, notify func(key string)) *CardFetcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = 5 * time.Minute
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = time.Second
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 5 * time.Minute
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.Transport == nil {
		cfg.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &CardFetcher{
		cfg: cfg,
		// Cards are read from the agent itself, never through a proxy.
		client: &http.Client{Timeout: cfg.Timeout, Transport: withoutProxy(cfg.Transport),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		notify: notify,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](cfg.RetryBase, cfg.RetryMax),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "AgentCards"}),
		targets: map[string]CardTarget{},
		results: map[string]CardResult{},
	}
}

func withoutProxy(rt http.RoundTripper) http.RoundTripper {
	if t, ok := rt.(*http.Transport); ok {
		t = t.Clone()
		t.Proxy = nil
		return t
	}
	return rt
}

// Want records that the Agent key wants the card of target and returns the last result for that
// target; ok is false while none has been read yet (a read is then under way).
func (f *CardFetcher) Want(key string, target CardTarget) (result CardResult, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if old, known := f.targets[key]; known && old == target {
		result, ok = f.results[key]
		return result, ok
	}
	f.targets[key] = target
	delete(f.results, key)
	f.queue.Forget(key)
	f.queue.Add(key)
	return CardResult{}, false
}

// Forget drops an Agent: it is gone, or has no replica to ask. A read under way is discarded.
func (f *CardFetcher) Forget(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.targets, key)
	delete(f.results, key)
	f.queue.Forget(key)
}

// Len is the number of Agents whose cards the fetcher keeps reading.
func (f *CardFetcher) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.targets)
}

// Run reads cards until ctx ends.
func (f *CardFetcher) Run(ctx context.Context) {
	defer f.queue.ShutDown()
	for i := 0; i < f.cfg.Workers; i++ {
		go wait.UntilWithContext(ctx, f.work, time.Second)
	}
	<-ctx.Done()
}

func (f *CardFetcher) work(ctx context.Context) {
	for f.next(ctx) {
	}
}

// next reads one queued card.
func (f *CardFetcher) next(ctx context.Context) bool {
	key, quit := f.queue.Get()
	if quit {
		return false
	}
	defer f.queue.Done(key)
	if f.cfg.Exists != nil && !f.cfg.Exists(key) {
		f.Forget(key)
		return true
	}
	f.mu.Lock()
	target, ok := f.targets[key]
	f.mu.Unlock()
	if !ok {
		return true
	}
	card, err := f.fetch(ctx, target)
	result := CardResult{Card: card, Err: err}

	f.mu.Lock()
	if f.targets[key] != target {
		// Forgotten or retargeted while the read was under way: its result belongs to nobody.
		f.mu.Unlock()
		return true
	}
	old, had := f.results[key]
	f.results[key] = result
	f.mu.Unlock()

	if err != nil {
		klog.V(4).InfoS("Reading an agent card failed", "agent", key, "err", err)
		f.queue.AddRateLimited(key)
	} else {
		f.queue.Forget(key)
		f.queue.AddAfter(key, f.cfg.Refresh)
	}
	if !had || !sameResult(old, result) {
		f.notify(key)
	}
	return true
}

func sameResult(a, b CardResult) bool {
	if (a.Err == nil) != (b.Err == nil) || (a.Err != nil && a.Err.Error() != b.Err.Error()) {
		return false
	}
	return reflect.DeepEqual(a.Card, b.Card)
}

// fetch reads the card at each of CardPaths in turn and returns the first; the error names the
// last URL tried.
func (f *CardFetcher) fetch(ctx context.Context, target CardTarget) (*v1alpha1.Card, error) {
	base, err := url.Parse(target.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("the agent's URL %q: %w", target.BaseURL, err)
	}
	var lastErr error
	for _, path := range CardPaths {
		card, err := f.get(ctx, "http://"+target.Address+path, base.Host)
		if err == nil {
			card.SkillsNames = card.Skills.Names()
			return card, nil
		}
		lastErr = fmt.Errorf("%s%s: %w", target.BaseURL, path, err)
	}
	return nil, lastErr
}

// get reads one card.
func (f *CardFetcher) get(ctx context.Context, rawURL, host string) (*v1alpha1.Card, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Host = host
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		// The client's error repeats the address the request went to; what failed is enough.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxCardBytes))
		return nil, fmt.Errorf("unexpected status: %s", resp.Status)
	}
	card := &v1alpha1.Card{}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxCardBytes)).Decode(card); err != nil {
		return nil, fmt.Errorf("not an agent card: %w", err)
	}
	return card, nil
}
