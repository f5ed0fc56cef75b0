package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// The operator's heap profile. controllercmd's HTTPS server (OPERATOR_LISTEN) is a generic
// apiserver with profiling on (k8s.io/apiserver's EnableProfiling defaults to true): it serves
// /debug/pprof/ behind the same delegated authentication and authorization as /metrics, so the
// bench reads it with the admin's token and the operator needs no flag of its own.

// heapConsumer is one function's share of the heap in use.
type heapConsumer struct {
	Function string  `json:"function"`
	MiB      float64 `json:"mib"`
}

// heapTops are a heap profile's top consumers of in-use space: flat (allocated by the function
// itself) and cumulative (by it and what it calls), the latter without the runtime's and the
// goroutine roots' frames, which hold everything.
type heapTops struct {
	InUseMiB float64        `json:"inUseMiB"`
	Flat     []heapConsumer `json:"flat"`
	Cum      []heapConsumer `json:"cum"`
}

// profile reads one of the operator's pprof profiles, keeps it in the work directory as
// <name>.pb.gz for `go tool pprof`, and parses it.
func (b *bench) profile(ctx context.Context, path, name string, timeout time.Duration) (*profile.Profile, string, error) {
	raw, err := b.fetchFor(ctx, path, timeout)
	if err != nil {
		return nil, "", err
	}
	file := filepath.Join(b.workDir, name+".pb.gz")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		logf("  keep %s: %v", file, err)
	}
	p, err := profile.Parse(bytes.NewReader(raw))
	return p, file, err
}

// fetch reads one path of the operator's HTTPS server with the admin's bearer token.
func (b *bench) fetch(ctx context.Context, path string) ([]byte, error) {
	return b.fetchFor(ctx, path, 30*time.Second)
}

// fetchFor is fetch with a timeout of its own (a CPU profile takes as long as it samples).
func (b *bench) fetchFor(ctx context.Context, path string, timeout time.Duration) ([]byte, error) {
	if b.admin == nil || b.admin.BearerToken == "" {
		return nil, fmt.Errorf("the admin kubeconfig has no bearer token")
	}
	client := &http.Client{
		Timeout:   timeout,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback, self-signed
	}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+b.listen+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+b.admin.BearerToken)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	return io.ReadAll(resp.Body)
}

// topConsumers sums a heap profile's inuse_space by function, flat and cumulative, and keeps
// the n largest of each.
func topConsumers(p *profile.Profile, n int) (heapTops, error) {
	flat, cum, total, err := sumByFunction(p, "inuse_space")
	if err != nil {
		return heapTops{}, err
	}
	return heapTops{InUseMiB: mib(total), Flat: largest(flat, n), Cum: largest(cum, n)}, nil
}

// sumByFunction sums a profile's samples of one type by function: flat (the function itself)
// and cumulative (it and what it calls, without boring frames), and the total.
func sumByFunction(p *profile.Profile, sampleType string) (flat, cum map[string]int64, total int64, err error) {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == sampleType {
			idx = i
		}
	}
	if idx < 0 {
		return nil, nil, 0, fmt.Errorf("the profile has no %s samples", sampleType)
	}
	flat, cum = map[string]int64{}, map[string]int64{}
	for _, s := range p.Sample {
		v := s.Value[idx]
		total += v
		seen := map[string]bool{}
		for i, loc := range s.Location {
			for j, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				fn := line.Function.Name
				if i == 0 && j == 0 {
					flat[fn] += v
				}
				if !seen[fn] && !boringFrame(fn) {
					seen[fn] = true
					cum[fn] += v
				}
			}
		}
	}
	return flat, cum, total, nil
}

// cpuProfile takes a CPU profile of the operator over the given seconds (started as a workload
// is created, so it covers its convergence), keeps it in the work directory for `go tool
// pprof`, and reports the functions that used the most CPU, cumulative then flat, as a finding.
func (b *bench) cpuProfile(ctx context.Context, sc string, seconds int) {
	p, path, err := b.profile(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds), "cpu-"+sc, time.Duration(seconds+30)*time.Second)
	if err != nil {
		logf("  CPU profile: %v", err)
		return
	}
	flat, cum, total, err := sumByFunction(p, "cpu")
	if err != nil || total == 0 {
		logf("  CPU profile: %v (total %d)", err, total)
		return
	}
	var lines []string
	add := func(what string, m map[string]int64) {
		fns := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), cmp.Compare(a, b)) })
		for _, fn := range fns[:min(len(fns), 15)] {
			lines = append(lines, fmt.Sprintf("%s %6.2f CPU-s %5.1f%%  %s", what, float64(m[fn])/1e9, 100*float64(m[fn])/float64(total), fn))
		}
	}
	add("cum ", cum)
	add("flat", flat)
	b.finding(fmt.Sprintf("%s: CPU profile of the operator over the first %d s of the convergence, %.1f CPU-s sampled (profile kept in %s): top functions, cumulative without runtime frames, then flat",
		sc, seconds, float64(total)/1e9, path), lines)
}

// boringFrame is a frame every sample passes through: the runtime, goroutine roots, wait
// loops. Leaving them out of the cumulative list leaves the frames that say what holds memory.
func boringFrame(fn string) bool {
	for _, p := range []string{"runtime.", "main.main", "k8s.io/apimachinery/pkg/util/wait.", "sync.(*Once)", "reflect."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

func mib(v int64) float64 { return math.Round(float64(v)/(1<<20)*10) / 10 }

func largest(m map[string]int64, n int) []heapConsumer {
	out := make([]heapConsumer, 0, len(m))
	for fn, v := range m {
		out = append(out, heapConsumer{Function: fn, MiB: mib(v)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].MiB != out[j].MiB {
			return out[i].MiB > out[j].MiB
		}
		return out[i].Function < out[j].Function
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// heapTop takes the operator's heap profile (after a GC: /debug/pprof/heap?gc=1), keeps it in
// the work directory for `go tool pprof`, and reports its top consumers: the total in use as a
// metric, the lists in the details and a finding.
func (b *bench) heapTop(ctx context.Context, sc string) {
	p, path, err := b.profile(ctx, "/debug/pprof/heap?gc=1", "heap-"+sc, 30*time.Second)
	if err != nil {
		logf("  heap profile: %v", err)
		return
	}
	tops, err := topConsumers(p, 12)
	if err != nil {
		logf("  heap profile: %v", err)
		return
	}
	b.res.Add(sc, "heap in use by the profile (after a GC)", "MiB", "", "lower", tops.InUseMiB).Note =
		"inuse_space of /debug/pprof/heap?gc=1 on the operator's HTTPS server; profile kept in " + path
	b.res.Details[sc+"/heapTop"] = tops
	var lines []string
	for _, c := range tops.Cum {
		lines = append(lines, fmt.Sprintf("cum  %7.1f MiB  %s", c.MiB, c.Function))
	}
	for _, c := range tops.Flat {
		lines = append(lines, fmt.Sprintf("flat %7.1f MiB  %s", c.MiB, c.Function))
	}
	b.finding(fmt.Sprintf("%s: heap profile, %.1f MiB in use: top consumers (cumulative without runtime frames, then flat)", sc, tops.InUseMiB), lines)
	logf("  heap in use %.1f MiB; top cumulative: %s", tops.InUseMiB, describeTops(tops.Cum, 4))
}

func describeTops(cs []heapConsumer, n int) string {
	parts := make([]string, 0, n)
	for i, c := range cs {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.1f MiB", c.Function, c.MiB))
	}
	return strings.Join(parts, ", ")
}

// openWatches reports the operator's watches open at the moment at, by what they watch (the
// audit log: started, not yet ended); goal: bounded by the kinds and namespaces watched.
func (b *bench) openWatches(sc string, at time.Time) {
	if b.audit == nil {
		return
	}
	byTarget := b.audit.OpenWatches(b.user, at)
	total, perObject := 0, 0
	targets := make([]string, 0, len(byTarget))
	for t, n := range byTarget {
		total += n
		if strings.HasSuffix(t, "(one object)") {
			perObject += n
		}
		targets = append(targets, t)
	}
	sort.Strings(targets)
	parts := make([]string, 0, len(targets))
	for _, t := range targets {
		parts = append(parts, fmt.Sprintf("%s %d", t, byTarget[t]))
	}
	b.res.Add(sc, "watches open at steady state", "watches", "bounded by the kinds watched", "lower", float64(total)).Note =
		"the operator's watch requests started and not ended once quiet after convergence (audit log): " + strings.Join(parts, ", ")
	b.res.Add(sc, "  of which on one object each", "watches", "0 (not one per CR or referenced Secret)", "lower", float64(perObject))
	b.res.Details[sc+"/openWatches"] = byTarget
	logf("  %d watches open (%d on one object each): %s", total, perObject, strings.Join(parts, ", "))
}

// scaleUnconverged reports what a scale scenario that timed out reached: how many CRs
// converged, the operator's requests, CPU and memory until then, and its heap profile.
func (b *bench) scaleUnconverged(ctx context.Context, s *scaleScenario, t0 time.Time, rss []float64, cpu0 float64) {
	sc := s.sc
	now := time.Now()
	b.res.Add(sc, "did not converge: seconds waited", "s", "", "", now.Sub(t0).Seconds())
	if cpu1, err := live.CPUSeconds(b.op.Pid); err == nil {
		b.res.Add(sc, "did not converge: operator CPU meanwhile", "CPU-s", "", "", cpu1-cpu0)
	}
	if len(rss) > 0 {
		b.res.Add(sc, "did not converge: RSS samples (last, highest)", "MiB", "", "", rss[len(rss)-1], maxOf(rss))
	}
	if b.audit != nil {
		c := live.Summarize(b.operatorQuery(t0, now, nil), t0)
		b.res.Add(sc, "did not converge: operator requests/s meanwhile (excl. leases)", "req/s", "", "",
			float64(c.Total-c.Leases)/now.Sub(t0).Seconds()).Note =
			fmt.Sprintf("%d reads (%d get/list), %d writes (%d failed), %d events", c.Reads, c.APIReads, c.Writes, c.FailedWrites, c.Events)
		b.openWatches(sc, now)
	}
	b.heapTop(ctx, sc)
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
