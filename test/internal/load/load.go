// Package load sends requests to a serving stack at a steady rate while a test injects faults,
// and counts what users would see: per phase (quiet, operator killed, rollout, ...) the requests
// sent and failed with their latencies, and the batches accepted and completed.
//
// Run calls the ops in turn, one every interval, each in its own goroutine so that a slow
// request does not slow the rate; an op records its requests through Recorder.Do. A test marks
// the phases with Recorder.SetPhase while Run goes on; a request counts in the phase that was
// current when it was sent, a batch in the phase that was current when it was accepted.
// Everything is bounded: by a count of ops, a duration and the context.
package load

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// Op is one kind of work the loop starts: a chat completion, a batch's whole life. It records
// each of its requests with Recorder.Do.
type Op func(ctx context.Context, r *Recorder)

// Bounds limit a run: at most Ops ops started, none after Duration.
type Bounds struct {
	Interval time.Duration
	Ops      int
	Duration time.Duration
}

// Run starts ops in turn (ops[0], ops[1], ..., ops[0], ...), one every b.Interval, until b.Ops
// were started, b.Duration passed, ctx is done or stop is closed; then waits for those in
// flight and returns how many were started.
func Run(ctx context.Context, b Bounds, r *Recorder, stop <-chan struct{}, ops ...Op) int {
	if len(ops) == 0 || b.Interval <= 0 {
		return 0
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	deadline := time.NewTimer(b.Duration)
	defer deadline.Stop()
	tick := time.NewTicker(b.Interval)
	defer tick.Stop()
	started := 0
	for started < b.Ops {
		op := ops[started%len(ops)]
		started++
		wg.Add(1)
		go func() {
			defer wg.Done()
			op(ctx, r)
		}()
		select {
		case <-ctx.Done():
			return started
		case <-stop:
			return started
		case <-deadline.C:
			return started
		case <-tick.C:
		}
	}
	return started
}

// Outcome is one request: its kind, the phase it was sent in, when it was sent, how long it
// took, and its error.
type Outcome struct {
	Kind    string
	Phase   string
	Start   time.Time
	Latency time.Duration
	Err     error
}

// Batch is an accepted batch, counted in the phase it was accepted in.
type Batch struct{ phase string }

// Recorder keeps the outcomes; safe for concurrent use.
type Recorder struct {
	mu        sync.Mutex
	phase     string
	phases    []string
	outcomes  []Outcome
	accepted  map[string]int
	completed map[string]int
	lost      map[string][]string
	now       func() time.Time
}

// NewRecorder starts in phase first.
func NewRecorder(first string) *Recorder {
	r := &Recorder{accepted: map[string]int{}, completed: map[string]int{}, lost: map[string][]string{}, now: time.Now}
	r.SetPhase(first)
	return r
}

// SetPhase makes name the phase of the requests sent from now on.
func (r *Recorder) SetPhase(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phase = name
	if !slices.Contains(r.phases, name) {
		r.phases = append(r.phases, name)
	}
}

// Phase is the current phase.
func (r *Recorder) Phase() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.phase
}

// Do sends one request (f) of kind, timing it, and records its outcome in the current phase.
func (r *Recorder) Do(kind string, f func() error) error {
	phase := r.Phase()
	start := r.now()
	err := f()
	r.add(Outcome{Kind: kind, Phase: phase, Start: start, Latency: r.now().Sub(start), Err: err})
	return err
}

func (r *Recorder) add(o Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes = append(r.outcomes, o)
}

// Accepted counts a batch the gateway accepted, in the current phase.
func (r *Recorder) Accepted() Batch {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.accepted[r.phase]++
	return Batch{phase: r.phase}
}

// Completed counts b as completed: its output came back whole.
func (r *Recorder) Completed(b Batch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.completed[b.phase]++
}

// Lost records why an accepted batch b did not complete (failed, expired, its output wrong,
// or still running when the test gave up on it).
func (r *Recorder) Lost(b Batch, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lost[b.phase] = append(r.lost[b.phase], why)
}

// Outcomes is a copy of the outcomes so far.
func (r *Recorder) Outcomes() []Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.outcomes)
}

// PhaseReport is what users saw during one phase.
type PhaseReport struct {
	Phase string
	// Sent and Failed count requests of every kind; P99 is over all of them.
	Sent, Failed int
	P99          time.Duration
	// ByKind: the same, per kind of request.
	ByKind []KindReport
	// Batches accepted in this phase, and of them completed; Lost says why the others did not.
	Accepted, Completed int
	Lost                []string
	// Errors: the first errors met, for the log.
	Errors []string
}

// KindReport is one kind of request within a phase.
type KindReport struct {
	Kind         string
	Sent, Failed int
	P99          time.Duration
}

// maxErrors is how many errors a phase's report keeps.
const maxErrors = 5

// Report is each phase's figures, in the order the phases began.
func (r *Recorder) Report() []PhaseReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []PhaseReport
	for _, phase := range r.phases {
		p := PhaseReport{Phase: phase, Accepted: r.accepted[phase], Completed: r.completed[phase], Lost: slices.Clone(r.lost[phase])}
		var all []time.Duration
		byKind := map[string][]Outcome{}
		var kinds []string
		for _, o := range r.outcomes {
			if o.Phase != phase {
				continue
			}
			p.Sent++
			all = append(all, o.Latency)
			if o.Err != nil {
				p.Failed++
				if len(p.Errors) < maxErrors {
					p.Errors = append(p.Errors, o.Kind+": "+o.Err.Error())
				}
			}
			if _, ok := byKind[o.Kind]; !ok {
				kinds = append(kinds, o.Kind)
			}
			byKind[o.Kind] = append(byKind[o.Kind], o)
		}
		p.P99 = Percentile(all, 0.99)
		sort.Strings(kinds)
		for _, k := range kinds {
			kr := KindReport{Kind: k}
			var lat []time.Duration
			for _, o := range byKind[k] {
				kr.Sent++
				if o.Err != nil {
					kr.Failed++
				}
				lat = append(lat, o.Latency)
			}
			kr.P99 = Percentile(lat, 0.99)
			p.ByKind = append(p.ByKind, kr)
		}
		out = append(out, p)
	}
	return out
}

// Percentile is the nearest-rank q-quantile of d (0 for none): the smallest value with at
// least q of the values at or below it.
func Percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := int(math.Ceil(q * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// WriteTable writes the reports as a table: one line per phase, then one per kind of request.
func WriteTable(w io.Writer, reports []PhaseReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\tkind\tsent\tfailed\tp99\tbatches accepted\tcompleted")
	for _, p := range reports {
		fmt.Fprintf(tw, "%s\tall\t%d\t%d\t%s\t%d\t%d\n", p.Phase, p.Sent, p.Failed, p.P99.Round(time.Millisecond), p.Accepted, p.Completed)
		for _, k := range p.ByKind {
			fmt.Fprintf(tw, "\t%s\t%d\t%d\t%s\t\t\n", k.Kind, k.Sent, k.Failed, k.P99.Round(time.Millisecond))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range reports {
		for _, why := range p.Lost {
			fmt.Fprintf(w, "%s: lost batch: %s\n", p.Phase, oneLine(why))
		}
		for _, e := range p.Errors {
			fmt.Fprintf(w, "%s: error: %s\n", p.Phase, oneLine(e))
		}
	}
	return nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
