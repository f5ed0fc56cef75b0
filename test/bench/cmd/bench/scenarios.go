package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

const (
	scConvergence = "1-convergence"
	scQuiet       = "2-quiet"
	scDrift       = "3-drift"
	scFootprint   = "4-footprint"
	scStartup     = "5-startup"

	// touchAnnotation is the annotation scenario 2 changes on the CR to force syncs.
	touchAnnotation = "bench.llm-infra.io/touch"
)

func secondsSince(t0, t time.Time) float64 { return t.Sub(t0).Seconds() }

// waitOperatorQuiet waits until the operator has made no write (leases, events excluded) for
// gap, at most max; it returns when quiet was confirmed and whether it was reached.
func (b *bench) waitOperatorQuiet(ctx context.Context, gap, max time.Duration) (time.Time, bool) {
	start := time.Now()
	if b.audit == nil {
		sleep(ctx, gap)
		return time.Now(), true
	}
	for {
		time.Sleep(200 * time.Millisecond)
		last := b.audit.LastWrite(b.user, start.Add(-gap))
		ref := start
		if last.After(ref) {
			ref = last
		}
		now := time.Now()
		if now.Sub(ref) >= gap {
			return now, true
		}
		if now.Sub(start) >= max || ctx.Err() != nil {
			return now, false
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (b *bench) operatorQuery(from, to time.Time, keep func(*live.AuditEvent) bool) []*live.AuditEvent {
	if b.audit == nil {
		return nil
	}
	return b.audit.Query(b.user, from, to, keep)
}

// finding records an observation with its audit-log evidence (at most 25 lines).
func (b *bench) finding(summary string, evidence []string) {
	if len(evidence) > 25 {
		evidence = append(evidence[:25:25], fmt.Sprintf("... %d more", len(evidence)-25))
	}
	text := summary
	if len(evidence) > 0 {
		text += "\n" + strings.Join(evidence, "\n")
	}
	b.res.Findings = append(b.res.Findings, text)
	logf("FINDING: %s", text)
}

func (b *bench) isOperandWrite(e *live.AuditEvent) bool {
	for _, o := range b.objects {
		if o.matches(e) {
			return true
		}
	}
	return false
}

func isCRWrite(e *live.AuditEvent, subresource string) bool {
	r := e.ObjectRef
	return e.Class() == live.ClassWrite && r != nil && r.Resource == operatorCRDRes && r.Name == crName && r.Subresource == subresource
}

// resourceVersions snapshots the resourceVersion of every operand object: a write that changes
// nothing on the server (a no-op update) leaves it as it was.
func (b *bench) resourceVersions(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, o := range b.objects {
		if obj, err := b.get(ctx, o); err == nil {
			out[o.String()] = obj.GetResourceVersion()
		}
	}
	return out
}

// changedObjects lists the operand objects whose resourceVersion differs from before.
func (b *bench) changedObjects(ctx context.Context, before map[string]string) []string {
	var changed []string
	for k, v := range b.resourceVersions(ctx) {
		if before[k] != v {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	return changed
}

// ---------------------------------------------------------------------------
// 1. Convergence
// ---------------------------------------------------------------------------

func (b *bench) scenarioConvergence(ctx context.Context) error {
	logf("scenario 1: convergence, %d runs", b.runs)
	var applied, available, writes, objWrites, statusWrites, crWrites, otherWrites, failed, minimum, tail, events, removal []float64
	var details []map[string]any
	for i := 0; i < b.runs; i++ {
		if _, err := b.getCR(ctx); err == nil {
			t := time.Now()
			if err := b.deleteCRAndWait(ctx, b.objects, 3*time.Minute); err != nil {
				return err
			}
			removal = append(removal, time.Since(t).Seconds())
		}
		b.waitOperatorQuiet(ctx, 2*time.Second, 30*time.Second)
		preexisting := map[string]bool{}
		for _, o := range b.objects {
			if _, err := b.get(ctx, o); err == nil {
				preexisting[o.String()] = true
			}
		}

		t0 := time.Now()
		if err := b.createCR(ctx); err != nil {
			return fmt.Errorf("create the CR: %w", err)
		}
		tApplied, err := b.waitObjectsApplied(ctx, t0, preexisting, 5*time.Minute)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		tAvail, err := b.waitAvailable(ctx, 5*time.Minute)
		if err != nil {
			return fmt.Errorf("run %d: Available=True: %w", i+1, err)
		}
		quietAt, quiet := b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
		applied = append(applied, secondsSince(t0, tApplied))
		available = append(available, secondsSince(t0, tAvail))
		logf("  run %d: objects applied %.2fs, Available %.2fs", i+1, secondsSince(t0, tApplied), secondsSince(t0, tAvail))

		if b.audit == nil {
			continue
		}
		until := b.operatorQuery(t0, tAvail, nil)
		c := live.Summarize(until, t0)
		var nObj, nStatus, nCR, nOther, nFailed int
		for _, e := range until {
			if e.Class() != live.ClassWrite {
				continue
			}
			if !e.OK() {
				nFailed++
			}
			switch {
			case b.isOperandWrite(e):
				nObj++
			case isCRWrite(e, "status"):
				nStatus++
			case isCRWrite(e, ""):
				nCR++
			default:
				nOther++
			}
		}
		// One write per operand object (a create; the LWS CRD survives the CR's deletion, so
		// from the second run on it is one update), the finalizer, and one status write that
		// reports Available.
		min := float64(len(b.objects) + 1 + 1)
		after := live.Summarize(b.operatorQuery(tAvail, quietAt, nil), tAvail)
		writes = append(writes, float64(c.Writes))
		objWrites = append(objWrites, float64(nObj))
		statusWrites = append(statusWrites, float64(nStatus))
		crWrites = append(crWrites, float64(nCR))
		otherWrites = append(otherWrites, float64(nOther))
		failed = append(failed, float64(nFailed))
		minimum = append(minimum, min)
		tail = append(tail, float64(after.Writes))
		events = append(events, float64(c.Events))
		details = append(details, map[string]any{
			"run": i + 1, "writesUntilAvailable": c.WriteLines, "writesByKind": c.ByKind,
			"writesAvailableToQuiet": after.WriteLines, "quietReached": quiet, "events": c.Events,
		})
		logf("  run %d: %d writes until Available (%d operand objects, %d status, %d CR, %d other, %d failed), min %.0f; %d more until quiet",
			i+1, c.Writes, nObj, nStatus, nCR, nOther, nFailed, min, after.Writes)
		if i == 0 && float64(c.Writes) > min {
			var ev []string
			ev = append(ev, "writes by kind: "+c.ByKindString())
			ev = append(ev, c.WriteLines...)
			b.finding(fmt.Sprintf("convergence run 1: the operator made %d writes until Available=True, the physical minimum is %.0f (%d operand objects + finalizer + 1 status)",
				c.Writes, min, len(b.objects)), ev)
		}
	}
	sc := scConvergence
	b.res.Add(sc, "CR created -> all operand objects applied", "s", "", "lower", applied...).Note =
		fmt.Sprintf("%d objects: bindata/assets/lws (ServiceMonitor only with its CRD) + ConfigMap %s; time of the operator's last object write (audit log), else first seen by polling", len(b.objects), configMapName)
	b.res.Add(sc, "CR created -> Available=True", "s", "", "lower", available...).Note = "CR polled every 100ms"
	if b.audit != nil {
		b.res.Add(sc, "operator writes until Available (excl. events, leases)", "writes", fmt.Sprintf("= minimum (%d)", len(b.objects)+2), "lower", writes...)
		b.res.Add(sc, "  physical minimum", "writes", "", "", minimum...).Note =
			"one create per operand object (from run 2 the kept LWS CRD needs one update instead) + 1 finalizer update + 1 status write"
		b.res.Add(sc, "  of which operand-object writes", "writes", fmt.Sprint(len(b.objects)), "lower", objWrites...)
		b.res.Add(sc, "  of which CR status writes", "writes", "1", "lower", statusWrites...)
		b.res.Add(sc, "  of which CR metadata writes (finalizer)", "writes", "1", "lower", crWrites...)
		b.res.Add(sc, "  of which other writes", "writes", "0", "lower", otherWrites...)
		b.res.Add(sc, "  of which failed (4xx/5xx)", "writes", "0", "lower", failed...)
		b.res.Add(sc, "writes after Available until quiet", "writes", "", "lower", tail...)
		b.res.Add(sc, "events emitted until Available", "events", "", "", events...)
		b.res.Details[sc] = details
	}
	if len(removal) > 0 {
		b.res.Add(sc, "CR deleted -> operand objects removed", "s", "", "lower", removal...).Note =
			"between runs; the LWS CRD is kept by design; the previous run's CR"
	}
	return nil
}

// waitObjectsApplied returns when the last operand object was applied: from the audit log, the
// completion of the operator's first successful write of each object since t0 (an object that
// existed before and is never written counts as applied at t0); without an audit log, when
// polling first sees every object.
func (b *bench) waitObjectsApplied(ctx context.Context, t0 time.Time, preexisting map[string]bool, timeout time.Duration) (time.Time, error) {
	if b.audit == nil {
		seen := map[string]time.Time{}
		err := live.Poll(ctx, 250*time.Millisecond, timeout, func() (bool, error) {
			for _, o := range b.objects {
				if _, ok := seen[o.String()]; ok {
					continue
				}
				if _, err := b.get(ctx, o); err == nil {
					seen[o.String()] = time.Now()
				}
			}
			return len(seen) == len(b.objects), nil
		})
		var last time.Time
		for _, t := range seen {
			if t.After(last) {
				last = t
			}
		}
		return last, err
	}
	var last time.Time
	var missing []string
	err := live.Poll(ctx, 250*time.Millisecond, timeout, func() (bool, error) {
		writes := b.operatorQuery(t0, time.Now().Add(time.Hour), func(e *live.AuditEvent) bool {
			return e.Class() == live.ClassWrite && e.OK() && e.Verb != "delete"
		})
		last, missing = t0, nil
		for _, o := range b.objects {
			var first time.Time
			for _, e := range writes {
				if o.matches(e) {
					first = e.Done
					break
				}
			}
			if first.IsZero() {
				if !preexisting[o.String()] {
					missing = append(missing, o.String())
				}
				continue
			}
			if first.After(last) {
				last = first
			}
		}
		return len(missing) == 0, nil
	})
	if err != nil {
		return last, fmt.Errorf("operand objects not applied: %v: %w", missing, err)
	}
	for _, o := range b.objects {
		if _, err := b.get(ctx, o); err != nil {
			return last, fmt.Errorf("%s was written but does not exist: %w", o, err)
		}
	}
	return last, nil
}

// ---------------------------------------------------------------------------
// 2. Quiet resync
// ---------------------------------------------------------------------------

func (b *bench) scenarioQuietResync(ctx context.Context) error {
	if !b.scenarios["2"] {
		return nil
	}
	if err := b.ensureAvailable(ctx); err != nil {
		return err
	}
	logf("scenario 2: %d forced syncs (CR annotation changes, 500ms apart), %d runs", b.touches, b.runs)
	var writes, syncs, reads, evts, changed, syncDur []float64
	var details []map[string]any
	for i := 0; i < b.runs; i++ {
		b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
		rvs := b.resourceVersions(ctx)
		before, err := b.syncStats(ctx, operandLWS)
		if err != nil {
			return fmt.Errorf("the sync counter: %w", err)
		}
		t0 := time.Now()
		for j := 0; j < b.touches; j++ {
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"%d-%d-%d"}}}`, touchAnnotation, i, j, time.Now().UnixNano())
			if _, err := b.dyn.Resource(crGVR).Patch(ctx, crName, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				return fmt.Errorf("touch the CR: %w", err)
			}
			sleep(ctx, 500*time.Millisecond)
		}
		after, _, err := b.waitSyncs(ctx, operandLWS, before, float64(b.touches), time.Second, 30*time.Second)
		if err != nil {
			logf("  run %d: the sync counter did not count %d syncs: %v", i+1, b.touches, err)
		}
		t1 := time.Now()
		n, _, meanDur := after.since(before)
		syncs = append(syncs, n)
		syncDur = append(syncDur, meanDur)
		ch := b.changedObjects(ctx, rvs)
		changed = append(changed, float64(len(ch)))
		if len(ch) > 0 {
			logf("  run %d: operand objects changed: %v", i+1, ch)
		}
		if b.audit == nil {
			continue
		}
		evs := b.operatorQuery(t0, t1, nil)
		c := live.Summarize(evs, t0)
		if i == 0 {
			b.throttleFinding(evs, t0, int(n))
		}
		writes = append(writes, float64(c.Writes))
		evts = append(evts, float64(c.Events))
		if n > 0 {
			reads = append(reads, float64(c.APIReads)/n)
		}
		details = append(details, map[string]any{"run": i + 1, "writes": c.WriteLines, "syncsCounted": n, "apiReads": c.APIReads, "reads": c.Reads, "events": c.Events, "objectsChanged": ch})
		logf("  run %d: %.0f syncs counted, %d writes, %d API reads (get/list), %d events", i+1, n, c.Writes, c.APIReads, c.Events)
		if c.Writes > 0 && i == 0 {
			noop := "they changed nothing stored: no operand object's resourceVersion moved (no-op updates)"
			if len(ch) > 0 {
				noop = fmt.Sprintf("operand objects whose resourceVersion moved: %v", ch)
			}
			b.finding(fmt.Sprintf("quiet resync: %d writes by the operator during %.0f syncs with nothing changed (goal 0): %s; %s; each also emitted an Event (%d events)",
				c.Writes, n, c.ByKindString(), noop, c.Events), c.WriteLines)
		}
		if c.APIReads > 0 && i == 0 {
			b.finding(fmt.Sprintf("quiet resync: %d API reads (get/list) by the operator during %.0f syncs with nothing changed (goal 0): the engine reads from informer caches, so each is a cache miss",
				c.APIReads, n), c.APIReadLines)
		}
	}
	sc := scQuiet
	b.res.Add(sc, "operand objects changed by forced syncs", "objects", "0", "lower", changed...).Note =
		"objects whose resourceVersion moved (a no-op update does not move it)"
	b.res.Add(sc, "syncs observed", "syncs", fmt.Sprintf("%d (one per change)", b.touches), "", syncs...).Note =
		syncsMetric + `{operand="lws"} on the operator's /metrics, counted from before the first change until it has stayed put for 1s after the last`
	b.res.Add(sc, "duration of a quiet sync", "s", "", "lower", syncDur...).Note =
		"mean per run: " + syncDurationMetric + ` {operand="lws"}, sum/count over the forced syncs`
	if b.audit == nil {
		return nil
	}
	b.res.Add(sc, fmt.Sprintf("operator writes during %d forced syncs", b.touches), "writes", "0", "lower", writes...).Note =
		"the CR annotation writes are the bench's (admin user), not counted; events and leases excluded"
	b.res.Add(sc, "API reads per quiet sync", "requests", "0", "lower", reads...).Note =
		"the operator's GET and LIST requests (audit log) during the forced syncs / syncs observed; the engine answers reads from informer caches"
	b.res.Add(sc, "events during forced syncs", "events", "0", "lower", evts...)
	b.res.Details[sc+"/forced"] = details
	return nil
}

// throttleFinding looks at the gaps between consecutive requests of the operator during the
// forced syncs: client-go's token bucket (QPS 5 unless the client sets another) spaces requests
// exactly 200ms apart once its burst is spent, which the audit log shows plainly.
func (b *bench) throttleFinding(evs []*live.AuditEvent, t0 time.Time, syncs int) {
	var reqs []*live.AuditEvent
	for _, e := range evs {
		if e.Class() != live.ClassLease && e.Class() != live.ClassEvent {
			reqs = append(reqs, e)
		}
	}
	if len(reqs) < 20 {
		return
	}
	at200 := 0
	for i := 1; i < len(reqs); i++ {
		gap := reqs[i].Received.Sub(reqs[i-1].Received)
		if gap >= 190*time.Millisecond && gap <= 215*time.Millisecond {
			at200++
		}
	}
	share := float64(at200) / float64(len(reqs)-1)
	if share < 0.2 {
		return
	}
	var lines []string
	for i, e := range reqs {
		if i >= 24 {
			break
		}
		gap := ""
		if i > 0 {
			gap = fmt.Sprintf(" (gap %dms)", e.Received.Sub(reqs[i-1].Received).Milliseconds())
		}
		lines = append(lines, fmt.Sprintf("+%.3fs%s %s", e.Received.Sub(t0).Seconds(), gap, e.Describe()))
	}
	b.finding(fmt.Sprintf("client-side throttling: %d of %d gaps between the operator's consecutive requests during the forced syncs are 190-215ms, "+
		"the signature of client-go's default rate limit (5 req/s, burst 10): once the burst is spent, a sync of ~%d requests takes over a second and changes coalesce",
		at200, len(reqs)-1, len(reqs)/max(1, syncs)), lines)
}

// ensureAvailable creates the CR if it is missing and waits for Available=True.
func (b *bench) ensureAvailable(ctx context.Context) error {
	if _, err := b.getCR(ctx); apierrors.IsNotFound(err) {
		if err := b.createCR(ctx); err != nil {
			return err
		}
	}
	if _, err := b.waitAvailable(ctx, 5*time.Minute); err != nil {
		return fmt.Errorf("the CR is not Available: %w", err)
	}
	return nil
}

// idleWindow is what the operator did over a quiet window: requests from the audit log, memory
// and CPU from /proc.
type idleWindow struct {
	from, to time.Time
	c        live.Counts
	rss      []float64 // MiB, one sample per second
	cpu      float64   // CPU seconds used in the window
	hwm      float64   // MiB, VmHWM (peak RSS of the process so far) at the end
	heap     float64   // MiB, go_memstats_heap_inuse_bytes at the end (NaN if not scraped)
}

func (b *bench) measureIdle(ctx context.Context, d time.Duration) (idleWindow, error) {
	w := idleWindow{from: time.Now()}
	cpu0, err := live.CPUSeconds(b.op.Pid)
	if err != nil {
		return w, err
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	end := w.from.Add(d)
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return w, ctx.Err()
		case <-tick.C:
		}
		if rss, err := live.RSSBytes(b.op.Pid); err == nil {
			w.rss = append(w.rss, rss/(1<<20))
		}
	}
	w.to = time.Now()
	cpu1, err := live.CPUSeconds(b.op.Pid)
	if err != nil {
		return w, err
	}
	w.cpu = cpu1 - cpu0
	w.c = live.Summarize(b.operatorQuery(w.from, w.to, nil), w.from)
	// After the window, so the scrape's TokenReview/SubjectAccessReview are not counted in it.
	w.hwm, _ = live.ProcStatusKB(b.op.Pid, "VmHWM:")
	w.hwm /= 1024
	w.heap = b.heapInUse(ctx)
	return w, nil
}

func perMinute(n int, d time.Duration) float64 { return float64(n) / d.Minutes() }

// ---------------------------------------------------------------------------
// 3. Drift repair
// ---------------------------------------------------------------------------

type driftCase struct {
	label string
	asset string // objRef.asset of the object to edit or delete
	edit  bool   // scale the Deployment instead of deleting
}

var driftCases = []driftCase{
	{"Deployment replicas edit", "deployment.yaml", true},
	{"Service delete", "webhook-service.yaml", false},
	{"ServiceAccount delete", "serviceaccount.yaml", false},
	{"ConfigMap delete", "(code) " + configMapName, false},
	{"ClusterRole delete", "clusterrole.yaml", false},
	{"ClusterRoleBinding delete", "clusterrolebinding.yaml", false},
	{"Role delete", "leader-election-role.yaml", false},
	{"ValidatingWebhookConfiguration delete", "validatingwebhookconfiguration.yaml", false},
	{"MutatingWebhookConfiguration delete", "mutatingwebhookconfiguration.yaml", false},
	{"Certificate delete", "webhook-certificate.yaml", false},
	{"Issuer delete", "issuer.yaml", false},
}

const driftTimeout = 60 * time.Second

func (b *bench) scenarioDrift(ctx context.Context) error {
	if err := b.ensureAvailable(ctx); err != nil {
		return err
	}
	logf("scenario 3: drift repair, %d kinds x %d runs", len(driftCases), b.runs)
	times := map[string][]float64{}
	writes := map[string][]float64{}
	var all, ownWrites, otherWrites []float64
	unrepaired := 0
	details := map[string][]string{}
	for i := 0; i < b.runs; i++ {
		for _, dc := range driftCases {
			ref, ok := b.objectByAsset(dc.asset)
			if !ok {
				return fmt.Errorf("no operand object for %s", dc.asset)
			}
			b.waitOperatorQuiet(ctx, 3*time.Second, 30*time.Second)
			before, _ := b.syncStats(ctx, operandLWS)
			d, t0, err := b.driftOnce(ctx, ref, dc.edit)
			if err != nil {
				unrepaired++
				logf("  run %d %s: %v", i+1, dc.label, err)
				// Did the operator sync and decide there was nothing to do, or not sync at all?
				syncs := "the LWS sync counter could not be read"
				if after, serr := b.syncStats(ctx, operandLWS); serr == nil {
					n, _, _ := after.since(before)
					syncs = fmt.Sprintf("the operator synced LWS %.0f times meanwhile", n)
				}
				var evidence []string
				if b.audit != nil {
					c := live.Summarize(b.operatorQuery(t0, time.Now(), func(e *live.AuditEvent) bool { return e.Class() != live.ClassLease }), t0)
					evidence = append(c.WriteLines, c.APIReadLines...)
					syncs += fmt.Sprintf(", with %d writes and %d API reads", c.Writes, c.APIReads)
				}
				b.finding(fmt.Sprintf("drift: %s (%s) not repaired within %s: %v; %s", dc.label, ref, driftTimeout, err, syncs), evidence)
				if err := b.forceRepair(ctx, ref); err != nil {
					return err
				}
				continue
			}
			quietAt, _ := b.waitOperatorQuiet(ctx, 3*time.Second, 30*time.Second)
			times[dc.label] = append(times[dc.label], d.Seconds())
			all = append(all, d.Seconds())
			if b.audit != nil {
				evs := b.operatorQuery(t0, quietAt, nil)
				c := live.Summarize(evs, t0)
				writes[dc.label] = append(writes[dc.label], float64(c.Writes))
				own := 0
				for _, e := range evs {
					if e.Class() == live.ClassWrite && ref.matches(e) {
						own++
					}
				}
				ownWrites = append(ownWrites, float64(own))
				otherWrites = append(otherWrites, float64(c.Writes-own))
				details[fmt.Sprintf("run %d %s", i+1, dc.label)] = c.WriteLines
				logf("  run %d %-40s repaired in %.3fs, %d operator writes until quiet", i+1, dc.label, d.Seconds(), c.Writes)
			} else {
				logf("  run %d %-40s repaired in %.3fs", i+1, dc.label, d.Seconds())
			}
		}
	}
	// Everything at once: every deletable kind above deleted in one go, as a careless
	// `kubectl delete` would; the operator then repairs under its own client-side rate limit.
	var mass, massWrites []float64
	for i := 0; i < b.runs; i++ {
		b.waitOperatorQuiet(ctx, 3*time.Second, 30*time.Second)
		d, t0, err := b.massDrift(ctx)
		if err != nil {
			unrepaired++
			b.finding(fmt.Sprintf("drift: mass deletion not repaired within %s: %v", driftTimeout, err), nil)
			continue
		}
		quietAt, _ := b.waitOperatorQuiet(ctx, 3*time.Second, 30*time.Second)
		mass = append(mass, d.Seconds())
		if b.audit != nil {
			c := live.Summarize(b.operatorQuery(t0, quietAt, nil), t0)
			massWrites = append(massWrites, float64(c.Writes))
			details[fmt.Sprintf("run %d all at once", i+1)] = c.WriteLines
			logf("  run %d all %d deletable kinds at once: repaired in %.3fs, %d operator writes until quiet", i+1, len(driftCases)-1, d.Seconds(), c.Writes)
		} else {
			logf("  run %d all %d deletable kinds at once: repaired in %.3fs", i+1, len(driftCases)-1, d.Seconds())
		}
	}

	sc := scDrift
	for _, dc := range driftCases {
		b.res.Add(sc, dc.label+": time to repair", "s", "seconds", "lower", times[dc.label]...)
	}
	b.res.Add(sc, fmt.Sprintf("all %d deletable kinds deleted at once: time to repair all", len(driftCases)-1), "s", "seconds", "lower", mass...).Note =
		"one object of each deleted kind above, deleted together; time until the last is back"
	if b.audit != nil {
		b.res.Add(sc, fmt.Sprintf("all %d deletable kinds deleted at once: operator writes", len(driftCases)-1), "writes", fmt.Sprint(len(driftCases)-1), "lower", massWrites...)
	}
	b.res.Add(sc, "all kinds: time to repair", "s", "seconds", "lower", all...).Note = "max is the worst repair of any kind; each object polled every 50ms"
	b.res.Add(sc, "not repaired within 60s", "repairs", "0", "lower", float64(unrepaired))
	if b.audit != nil {
		for _, dc := range driftCases {
			b.res.Add(sc, dc.label+": operator writes per repair", "writes", "1", "lower", writes[dc.label]...)
		}
		b.res.Add(sc, "all kinds: writes to the drifted object per repair", "writes", "1", "lower", ownWrites...)
		b.res.Add(sc, "all kinds: writes to other objects per repair", "writes", "0 (+ status when it changes)", "lower", otherWrites...)
		b.res.Details[sc] = details
		// Evidence for repairs that took more than the one write they need.
		var extra []string
		for _, dc := range driftCases {
			m := b.res.Find(sc + "/" + dc.label + ": operator writes per repair")
			if m != nil && m.Max > 1 {
				key := ""
				for k, v := range details {
					if strings.HasSuffix(k, dc.label) && float64(len(v)) == m.Max {
						key = k
					}
				}
				extra = append(extra, fmt.Sprintf("%s: up to %.0f writes (%s):", dc.label, m.Max, key))
				extra = append(extra, details[key]...)
			}
		}
		if len(extra) > 0 {
			b.finding("drift repair made more than one write for some kinds (audit log, operator user, from the edit until 3s quiet)", extra)
		}
	}
	return nil
}

func (b *bench) objectByAsset(asset string) (objRef, bool) {
	for _, o := range b.objects {
		if o.asset == asset {
			return o, true
		}
	}
	return objRef{}, false
}

// driftOnce deletes ref (or scales the Deployment) and polls every 50ms until it is back (a
// new UID, or the original replicas). It returns the time to repair and when the edit was made.
func (b *bench) driftOnce(ctx context.Context, ref objRef, edit bool) (time.Duration, time.Time, error) {
	current, err := b.get(ctx, ref)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("get %s: %w", ref, err)
	}
	var t0 time.Time
	var restored func() (bool, error)
	if edit {
		orig, found, _ := unstructuredInt(current.Object, "spec", "replicas")
		if !found {
			orig = 1
		}
		patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, orig+2)
		t0 = time.Now()
		if _, err := b.dyn.Resource(ref.gvr).Namespace(ref.namespace).Patch(ctx, ref.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			return 0, t0, fmt.Errorf("scale %s: %w", ref, err)
		}
		restored = func() (bool, error) {
			obj, err := b.get(ctx, ref)
			if err != nil {
				return false, nil
			}
			r, _, _ := unstructuredInt(obj.Object, "spec", "replicas")
			return r == orig, nil
		}
	} else {
		uid := current.GetUID()
		t0 = time.Now()
		if err := b.del(ctx, ref, uid); err != nil {
			return 0, t0, fmt.Errorf("delete %s: %w", ref, err)
		}
		restored = func() (bool, error) {
			obj, err := b.get(ctx, ref)
			if err != nil {
				return false, nil
			}
			return obj.GetUID() != uid && obj.GetDeletionTimestamp() == nil, nil
		}
	}
	var at time.Time
	err = live.Poll(ctx, 50*time.Millisecond, driftTimeout, func() (bool, error) {
		ok, err := restored()
		if ok {
			at = time.Now()
		}
		return ok, err
	})
	if err != nil {
		return 0, t0, err
	}
	return at.Sub(t0), t0, nil
}

// massDrift deletes one object of every deletable drift kind together and polls until all are
// back with new UIDs.
func (b *bench) massDrift(ctx context.Context) (time.Duration, time.Time, error) {
	uids := map[string]types.UID{}
	var refs []objRef
	for _, dc := range driftCases {
		if dc.edit {
			continue
		}
		ref, ok := b.objectByAsset(dc.asset)
		if !ok {
			return 0, time.Time{}, fmt.Errorf("no operand object for %s", dc.asset)
		}
		current, err := b.get(ctx, ref)
		if err != nil {
			return 0, time.Time{}, fmt.Errorf("get %s: %w", ref, err)
		}
		uids[ref.String()] = current.GetUID()
		refs = append(refs, ref)
	}
	t0 := time.Now()
	for _, ref := range refs {
		if err := b.del(ctx, ref, uids[ref.String()]); err != nil && !apierrors.IsNotFound(err) {
			return 0, t0, fmt.Errorf("delete %s: %w", ref, err)
		}
	}
	back := map[string]bool{}
	var at time.Time
	err := live.Poll(ctx, 50*time.Millisecond, driftTimeout, func() (bool, error) {
		for _, ref := range refs {
			if back[ref.String()] {
				continue
			}
			obj, err := b.get(ctx, ref)
			if err == nil && obj.GetUID() != uids[ref.String()] && obj.GetDeletionTimestamp() == nil {
				back[ref.String()] = true
			}
		}
		if len(back) == len(refs) {
			at = time.Now()
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		var missing []string
		for _, ref := range refs {
			if !back[ref.String()] {
				missing = append(missing, ref.String())
				_ = b.forceRepair(ctx, ref)
			}
		}
		return 0, t0, fmt.Errorf("not back: %v: %w", missing, err)
	}
	return at.Sub(t0), t0, nil
}

// forceRepair makes the operator sync (a CR annotation change) and waits for ref to exist, so
// the scenarios after an unrepaired drift start from a complete operand.
func (b *bench) forceRepair(ctx context.Context, ref objRef) error {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"repair-%d"}}}`, touchAnnotation, time.Now().UnixNano())
	if _, err := b.dyn.Resource(crGVR).Patch(ctx, crName, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return err
	}
	return live.Poll(ctx, 200*time.Millisecond, 2*time.Minute, func() (bool, error) {
		_, err := b.get(ctx, ref)
		return err == nil, nil
	})
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		cur, ok = m[f]
		if !ok {
			return 0, false, nil
		}
	}
	switch v := cur.(type) {
	case int64:
		return v, true, nil
	case float64:
		return int64(v), true, nil
	case int:
		return int64(v), true, nil
	}
	return 0, false, fmt.Errorf("not a number: %T", cur)
}

// ---------------------------------------------------------------------------
// 5. Start-up
// ---------------------------------------------------------------------------

func (b *bench) scenarioStartup(ctx context.Context) error {
	if err := b.ensureAvailable(ctx); err != nil {
		return err
	}
	logf("scenario 5: %d restarts with nothing changed", b.runs)
	var healthy, lease, firstSync, writes, evts, leaseReqs, reads, changed, syncs []float64
	var details []map[string]any
	for i := 0; i < b.runs; i++ {
		b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
		rvs := b.resourceVersions(ctx)
		b.stopOperator()
		p, err := b.startOperator()
		if err != nil {
			return err
		}
		b.op = p
		t0 := p.Started
		tHealthy, err := b.operator().WaitHealthy(ctx, p, 2*time.Minute)
		if err != nil {
			return err
		}
		healthy = append(healthy, secondsSince(t0, tHealthy))
		// The new process counts its syncs from 0: the first scrape that shows one is when its
		// first sync was done (to within the polling interval).
		var firstSyncAt time.Time
		err = live.Poll(ctx, 100*time.Millisecond, 3*time.Minute, func() (bool, error) {
			st, err := b.syncStats(ctx, operandLWS)
			if err == nil && st.syncs >= 1 {
				firstSyncAt = st.at
				return true, nil
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("run %d: no sync counted after the restart (%s{operand=%q}): %w", i+1, syncsMetric, operandLWS, err)
		}
		firstSync = append(firstSync, secondsSince(t0, firstSyncAt))
		if b.audit == nil {
			logf("  run %d: /healthz after %.2fs, first sync done %.2fs (no audit log: requests not counted)", i+1, secondsSince(t0, tHealthy), secondsSince(t0, firstSyncAt))
			continue
		}
		// Count everything the new process did from its start until 10s after its first sync.
		end := firstSyncAt.Add(10 * time.Second)
		sleep(ctx, time.Until(end))
		evs := b.operatorQuery(t0, end, nil)
		c := live.Summarize(evs, t0)
		st, err := b.syncStats(ctx, operandLWS)
		if err != nil {
			return fmt.Errorf("run %d: the sync counter: %w", i+1, err)
		}
		nSyncs := int(st.syncs)
		ch := b.changedObjects(ctx, rvs)
		changed = append(changed, float64(len(ch)))
		syncs = append(syncs, float64(nSyncs))
		var leaseAt time.Time
		for _, e := range evs {
			if e.Class() == live.ClassLease && live.WriteVerbs[e.Verb] && e.OK() {
				leaseAt = e.Done
				break
			}
		}
		if !leaseAt.IsZero() {
			lease = append(lease, secondsSince(t0, leaseAt))
		}
		writes = append(writes, float64(c.Writes))
		evts = append(evts, float64(c.Events))
		leaseReqs = append(leaseReqs, float64(c.Leases))
		reads = append(reads, float64(c.Reads))
		details = append(details, map[string]any{"run": i + 1, "writes": c.WriteLines, "events": c.Events, "leases": c.Leases, "reads": c.Reads,
			"syncs": nSyncs, "objectsChanged": ch})
		logf("  run %d: /healthz %.2fs, lease %.2fs, first sync done %.2fs; %d writes, %d events, %d lease requests, %d reads",
			i+1, secondsSince(t0, tHealthy), secondsSince(t0, leaseAt), secondsSince(t0, firstSyncAt), c.Writes, c.Events, c.Leases, c.Reads)
		if c.Writes > 0 && i == 0 {
			b.finding(fmt.Sprintf("restart with nothing changed: %d writes by the new operator process in %d syncs (goal 0): %s; operand objects whose resourceVersion moved: %v",
				c.Writes, nSyncs, c.ByKindString(), ch), c.WriteLines)
		}
	}
	sc := scStartup
	b.res.Add(sc, "process start -> /healthz ok", "s", "", "lower", healthy...)
	b.res.Add(sc, "process start -> first sync done", "s", "", "lower", firstSync...).Note =
		"first scrape of the new process's /metrics (every 100ms) whose " + syncsMetric + `{operand="lws"} is 1`
	if b.audit != nil {
		b.res.Add(sc, "process start -> leader Lease acquired", "s", "", "lower", lease...).Note =
			"first successful Lease write by the new process (audit log); the old one released it on TERM"
		b.res.Add(sc, "writes by a restart (excl. events, leases)", "writes", "0", "lower", writes...).Note =
			"from process start until 10s after its first sync"
		b.res.Add(sc, "operand objects changed by a restart", "objects", "0", "lower", changed...).Note =
			"objects whose resourceVersion moved (a no-op update does not move it)"
		b.res.Add(sc, "syncs in the window", "syncs", "", "", syncs...).Note = syncsMetric + ` {operand="lws"} at the end of the window`
		b.res.Add(sc, "events emitted by a restart", "events", "reported apart", "", evts...).Note =
			"library-go's controllercmd emits start-up events (counted apart from writes)"
		b.res.Add(sc, "Lease requests during start-up", "requests", "", "", leaseReqs...)
		b.res.Add(sc, "reads during start-up (list/watch/get/discovery)", "requests", "", "lower", reads...)
		b.res.Details[sc] = details
	}
	return nil
}

// ---------------------------------------------------------------------------
// 2 (idle) and 4. Footprint
// ---------------------------------------------------------------------------

func (b *bench) scenarioFootprint(ctx context.Context) error {
	if err := b.ensureAvailable(ctx); err != nil {
		return err
	}
	b.waitOperatorQuiet(ctx, 3*time.Second, time.Minute)
	logf("quiet window of %s (scenario 2 idle requests, scenario 4 baseline), operator pid %d", b.quiet, b.op.Pid)
	before, err := b.measureIdle(ctx, b.quiet)
	if err != nil {
		return err
	}
	if b.audit != nil {
		sc := scQuiet
		d := before.to.Sub(before.from)
		b.res.Add(sc, "idle: requests/min excl. leases", "req/min", "~0 (watch renewals only)", "lower", perMinute(before.c.Total-before.c.Leases, d)).Note =
			fmt.Sprintf("one %s window; by class: %d reads, %d writes, %d events, %d reviews", d.Round(time.Second), before.c.Reads, before.c.Writes, before.c.Events, before.c.Reviews)
		b.res.Add(sc, "idle: writes/min excl. leases, events", "req/min", "0", "lower", perMinute(before.c.Writes, d))
		b.res.Add(sc, "idle: events/min", "req/min", "0", "lower", perMinute(before.c.Events, d))
		b.res.Add(sc, "idle: Lease requests/min (leader election)", "req/min", "reported apart", "", perMinute(before.c.Leases, d))
		if before.c.Writes > 0 {
			b.finding(fmt.Sprintf("idle: %d writes by the operator in a quiet %s window (goal 0): %s", before.c.Writes, d.Round(time.Second), before.c.ByKindString()), before.c.WriteLines)
		}
	}
	if !b.scenarios["4"] {
		return nil
	}
	sc := scFootprint
	b.res.Add(sc, "RSS over a quiet window", "MiB", "", "lower", before.rss...).Note = "VmRSS from /proc/<pid>/status, sampled every second"
	b.res.Add(sc, "CPU over a quiet window", "CPU-s", "", "lower", before.cpu).Note =
		fmt.Sprintf("utime+stime from /proc/<pid>/stat over %s", b.quiet)

	cpuLoad0, _ := live.CPUSeconds(b.op.Pid)
	t0 := time.Now()
	logf("creating %d ConfigMaps and %d Secrets in %d namespaces (concurrency %d)", b.loadObjects, b.loadObjects, b.loadNS, b.loadConc)
	load := objectLoad{prefix: "bench-load", namespaces: b.loadNS, configMaps: b.loadObjects, secrets: b.loadObjects}
	created, loadErr := b.createLoad(ctx, load)
	tLoad := time.Since(t0)
	cpuLoad1, _ := live.CPUSeconds(b.op.Pid)
	defer b.deleteNamespaces(load.selector())
	if loadErr != nil {
		return loadErr
	}
	b.res.Add(sc, "load: unrelated objects created", "objects", "", "", float64(created)).Note =
		fmt.Sprintf("%d ConfigMaps + %d Secrets in %d namespaces, in %s", b.loadObjects, b.loadObjects, b.loadNS, tLoad.Round(time.Second))
	b.res.Add(sc, "load: operator CPU while they were created", "CPU-s", "~0", "lower", cpuLoad1-cpuLoad0)
	if b.audit != nil {
		c := live.Summarize(b.operatorQuery(t0, time.Now(), nil), t0)
		b.res.Add(sc, "load: operator requests excl. leases", "requests", "0", "lower", float64(c.Total-c.Leases))
	}
	sleep(ctx, 5*time.Second)
	logf("quiet window of %s after the load", b.quiet)
	after, err := b.measureIdle(ctx, b.quiet)
	if err != nil {
		return err
	}
	b.res.Add(sc, "RSS over a quiet window after the load", "MiB", "", "lower", after.rss...)
	b.res.Add(sc, "Go heap in use before the load", "MiB", "", "lower", before.heap).Note =
		"go_memstats_heap_inuse_bytes from the operator's /metrics at the end of the window (steadier than RSS)"
	b.res.Add(sc, "Go heap in use after the load", "MiB", "", "lower", after.heap)
	b.res.Add(sc, "heap growth (after - before)", "MiB", "~0 (objects not managed)", "", after.heap-before.heap)
	b.res.Add(sc, "peak RSS (VmHWM) after the load", "MiB", "", "lower", after.hwm).Note =
		fmt.Sprintf("process lifetime peak; %.1f MiB before the load", before.hwm)
	b.res.Add(sc, "CPU over a quiet window after the load", "CPU-s", "", "lower", after.cpu)
	mb := median(before.rss)
	ma := median(after.rss)
	b.res.Add(sc, "RSS growth (median after - median before)", "MiB", "~0 (objects not managed)", "", ma-mb).Note =
		"reported, not asserted; Go's heap and GC make RSS move by a few MiB on its own"
	return nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
