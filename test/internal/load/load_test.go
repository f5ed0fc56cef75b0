package load

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // reversed: Percentile sorts
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		q    float64
		want time.Duration
	}{
		{"none", nil, 0.99, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"p99 of 1..100 is 99", ms(hundred...), 0.99, 99 * time.Millisecond},
		{"p50 of 1..100 is 50", ms(hundred...), 0.5, 50 * time.Millisecond},
		{"p99 of 10 is the largest", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.99, 10 * time.Millisecond},
		{"q 0 is the smallest", ms(3, 1, 2), 0, 1 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.in, tc.q); got != tc.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tc.in, tc.q, got, tc.want)
			}
		})
	}
}

// steppingClock advances by step on every reading, so each Do lasts exactly one step.
func steppingClock(step time.Duration) func() time.Time {
	var n atomic.Int64
	base := time.Unix(0, 0)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * step) }
}

func TestRecorderReport(t *testing.T) {
	boom := errors.New("boom")
	r := NewRecorder("quiet")
	r.now = steppingClock(time.Millisecond)
	for range 3 {
		_ = r.Do("chat", func() error { return nil })
	}
	b1 := r.Accepted()
	r.SetPhase("operator killed")
	_ = r.Do("chat", func() error { return boom })
	_ = r.Do("stream", func() error { return nil })
	b2 := r.Accepted()
	b3 := r.Accepted()
	// b1 completes while the operator is dead: it still counts for quiet, where it was accepted.
	r.Completed(b1)
	r.Completed(b2)
	r.Lost(b3, "expired")
	r.SetPhase("quiet") // a phase named again goes on counting in its first place

	_ = r.Do("chat", func() error { return nil })

	got := r.Report()
	want := []PhaseReport{
		{Phase: "quiet", Sent: 4, P99: time.Millisecond, ByKind: []KindReport{{Kind: "chat", Sent: 4, P99: time.Millisecond}}, Accepted: 1, Completed: 1},
		{Phase: "operator killed", Sent: 2, Failed: 1, P99: time.Millisecond,
			ByKind:   []KindReport{{Kind: "chat", Sent: 1, Failed: 1, P99: time.Millisecond}, {Kind: "stream", Sent: 1, P99: time.Millisecond}},
			Accepted: 2, Completed: 1, Lost: []string{"expired"}, Errors: []string{"chat: boom"}},
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("Report() =\n%+v\nwant\n%+v", got, want)
	}
	var table strings.Builder
	if err := WriteTable(&table, got); err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(table.String(), "\n") {
		lines[strings.Join(strings.Fields(l), " ")] = true
	}
	for _, line := range []string{
		"quiet all 4 0 1ms 1 1",
		"operator killed all 2 1 1ms 2 1",
		"stream 1 0 1ms",
		"operator killed: lost batch: expired",
		"operator killed: error: chat: boom",
	} {
		if !lines[line] {
			t.Errorf("table lacks the line %q:\n%s", line, table.String())
		}
	}
}

// TestRecorderOutcomeTimes: an outcome carries when its request was sent (a test compares it
// with a fault's window) and how long it took.
func TestRecorderOutcomeTimes(t *testing.T) {
	r := NewRecorder("p")
	r.now = steppingClock(time.Millisecond)
	_ = r.Do("chat", func() error { return nil })
	_ = r.Do("chat", func() error { return nil })
	got := r.Outcomes()
	for i, o := range got {
		// Each Do reads the clock twice: sent at the (2i+1)th step, answered one step later.
		if want := time.Unix(0, 0).Add(time.Duration(2*i+1) * time.Millisecond); !o.Start.Equal(want) || o.Latency != time.Millisecond {
			t.Errorf("outcome %d: sent %v after %v, want %v after 1ms", i, o.Start, o.Latency, want)
		}
	}
}

func TestRecorderKeepsFirstErrors(t *testing.T) {
	r := NewRecorder("p")
	for i := range maxErrors + 3 {
		_ = r.Do("chat", func() error { return fmt.Errorf("error %d", i) })
	}
	p := r.Report()[0]
	if p.Failed != maxErrors+3 || len(p.Errors) != maxErrors || p.Errors[0] != "chat: error 0" {
		t.Errorf("failed %d, errors %q: want %d failed and the first %d errors", p.Failed, p.Errors, maxErrors+3, maxErrors)
	}
}

// TestRunAgainstLocalHTTPTestServer runs the loop against a local httptest server (not a
// serving stack): the bounds stop it, every op started is recorded once, failures are counted
// in the phase they were sent in.
func TestRunAgainstLocalHTTPTestServer(t *testing.T) {
	var failing atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}))
	defer srv.Close()
	get := func(kind string) Op {
		return func(ctx context.Context, r *Recorder) {
			_ = r.Do(kind, func() error {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
				if err != nil {
					return err
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					return fmt.Errorf("status %d", resp.StatusCode)
				}
				return nil
			})
		}
	}

	for _, tc := range []struct {
		name        string
		bounds      Bounds
		stopped     bool // the stop channel closed before the run: only the first op starts
		wantStarted int
	}{
		{"count bound", Bounds{Interval: time.Millisecond, Ops: 20, Duration: time.Minute}, false, 20},
		{"stop channel", Bounds{Interval: time.Hour, Ops: 1000, Duration: time.Hour}, true, 1},
		{"duration bound", Bounds{Interval: time.Hour, Ops: 1000, Duration: 10 * time.Millisecond}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRecorder("quiet")
			stop := make(chan struct{})
			if tc.stopped {
				close(stop)
			}
			n := Run(context.Background(), tc.bounds, r, stop, get("chat"), get("stream"))
			if n != tc.wantStarted {
				t.Errorf("started %d ops, want %d", n, tc.wantStarted)
			}
			// Every op started has finished and was recorded (Run waits for those in flight).
			if got := len(r.Outcomes()); got != n {
				t.Errorf("%d outcomes recorded for %d ops started", got, n)
			}
		})
	}

	t.Run("failures count in the phase they were sent in", func(t *testing.T) {
		r := NewRecorder("quiet")
		ctx := context.Background()
		Run(ctx, Bounds{Interval: time.Millisecond, Ops: 4, Duration: time.Minute}, r, nil, get("chat"))
		failing.Store(true)
		r.SetPhase("down")
		Run(ctx, Bounds{Interval: time.Millisecond, Ops: 3, Duration: time.Minute}, r, nil, get("chat"))
		failing.Store(false)
		rep := r.Report()
		if len(rep) != 2 || rep[0].Sent != 4 || rep[0].Failed != 0 || rep[1].Sent != 3 || rep[1].Failed != 3 {
			t.Errorf("report %+v: want quiet 4 sent 0 failed, down 3 sent 3 failed", rep)
		}
		if !strings.Contains(rep[1].Errors[0], "status 503") {
			t.Errorf("errors %q: want the server's 503", rep[1].Errors)
		}
	})
}
