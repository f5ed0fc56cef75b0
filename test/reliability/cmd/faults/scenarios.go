package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/leaderelection"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands/batchgateway"
	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// isWrite keeps the operator's writes: creates, updates, patches, deletes of objects, not its
// leases, events or delegated auth reviews.
func isWrite(e *live.AuditEvent) bool { return e.Class() == live.ClassWrite }

// startOperator starts the operator (the main process) and waits until it is healthy.
func (s *suite) startOperator(ctx context.Context) error {
	p, err := s.operator.Start()
	if err != nil {
		return err
	}
	s.proc = p
	_, err = s.operator.WaitHealthy(ctx, p, 2*time.Minute)
	return err
}

// setup: users' data (Secrets seeded), the operator started, and for each operand a clean
// run: the objects of a convergence (and of a removal, for LWS, with the user's
// LeaderWorkerSet created while Removed), and the writes it took.
func (s *suite) setup(ctx context.Context) error {
	if err := s.createUserData(ctx); err != nil {
		return fmt.Errorf("users' data: %w", err)
	}
	if err := s.startOperator(ctx); err != nil {
		return err
	}
	s.operands = s.operandTable()
	for _, o := range s.operands {
		var err error
		t0 := time.Now()
		// The clean run's objects are whatever it settles to; the next checks compare with it.
		if o.applied, o.writes, err = s.cleanPhase(ctx, o.name+": the clean run did not converge", s.create, o, s.ready(o)); err != nil {
			return err
		}
		logf("%s: clean convergence: %d objects of the operator in the cluster, %d writes, %.1fs", o.name, len(o.applied), o.writes, time.Since(t0).Seconds())
		if leaks := s.unlabelled(ctx, t0, o.applied); len(leaks) > 0 {
			s.leaked += len(leaks)
			s.res.Fail("%s clean run: %s", o.name, strings.Join(leaks, "; "))
		}
		if o.removable {
			setRemoved := func(ctx context.Context, o *operand) error { return s.setManagementState(ctx, o, "Removed") }
			if o.removed, o.removeWrites, err = s.cleanPhase(ctx, o.name+": Removed did not converge", setRemoved, o, s.removedReady(o)); err != nil {
				return err
			}
			if err := s.createUserLWS(ctx); err != nil {
				return err
			}
			if err := s.setManagementState(ctx, o, "Managed"); err != nil {
				return err
			}
			if _, d, err := s.settle(ctx, o.applied, s.ready(o), s.timeout); err != nil {
				return fmt.Errorf("%s: Managed again did not converge: %v: %w", o.name, d, err)
			}
		}
		// The clean deletion: what a deleted CR leaves (LWS keeps its CRD on purpose), the
		// state every convergence of the kill points starts from.
		if o.absent, o.deleteWrites, err = s.cleanPhase(ctx, o.name+": the CR was not deleted", s.remove, o, s.gone(o)); err != nil {
			return err
		}
		if err := s.create(ctx, o); err != nil {
			return err
		}
		if _, d, err := s.settle(ctx, o.applied, s.ready(o), s.timeout); err != nil {
			return fmt.Errorf("%s: created again, did not converge: %v: %w", o.name, d, err)
		}
	}
	s.checkUsers(ctx, "in the clean runs")
	return nil
}

// cleanPhase is one phase of a clean run: act on the operand, wait until done says so, then
// the operator's objects once they stop changing, and the writes the operator made since the
// act (audit log).
func (s *suite) cleanPhase(ctx context.Context, failure string, act func(context.Context, *operand) error, o *operand, done func(context.Context) (bool, error)) (snapshot, int, error) {
	t0 := time.Now()
	if err := act(ctx, o); err != nil {
		return nil, 0, err
	}
	if err := live.Poll(ctx, time.Second, s.timeout, bind(ctx, done)); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", failure, err)
	}
	objects, err := s.stable(ctx)
	if err != nil {
		return nil, 0, err
	}
	return objects, len(s.audit.Since(s.user, t0, isWrite)), nil
}

// stable is the operator's objects once two snapshots a few seconds apart agree.
func (s *suite) stable(ctx context.Context) (snapshot, error) {
	var prev snapshot
	var out snapshot
	err := live.Poll(ctx, 3*time.Second, s.timeout, func() (bool, error) {
		cur, err := s.take(ctx)
		if err != nil {
			return false, err
		}
		if prev != nil && len(diff(prev, cur)) == 0 {
			out = cur
			return true, nil
		}
		prev = cur
		return false, nil
	})
	return out, err
}

// phase is something the operator does that a kill point interrupts: from a start state (reset
// brings the cluster there), an action, and the state a clean run ends in.
type phase struct {
	id     string // convergence, removal or deletion (-phases)
	name   string
	reset  func(context.Context) error
	action func(context.Context) error
	want   snapshot
	ready  func(context.Context) (bool, error)
	writes int
}

// toApplied brings the operand to its converged state (CR created, or Managed again).
func (s *suite) toApplied(ctx context.Context, o *operand) error {
	if ok, _ := s.ready(o)(ctx); !ok {
		if ok, _ := s.gone(o)(ctx); ok {
			if err := s.create(ctx, o); err != nil {
				return err
			}
		} else if o.removable {
			if err := s.setManagementState(ctx, o, "Managed"); err != nil {
				return err
			}
		}
	}
	_, d, err := s.settle(ctx, o.applied, s.ready(o), s.timeout)
	if err != nil {
		return fmt.Errorf("%s: back to converged: %v (the CRs say: %s): %w", o.name, d, s.conditions(ctx), err)
	}
	return nil
}

// toAbsent deletes the operand's CRs and waits for the objects of the state before them.
func (s *suite) toAbsent(ctx context.Context, o *operand) error {
	if err := s.remove(ctx, o); err != nil {
		return err
	}
	_, d, err := s.settle(ctx, o.absent, s.gone(o), s.timeout)
	if err != nil {
		return fmt.Errorf("%s: back to no CR: %v (the CRs say: %s): %w", o.name, d, s.conditions(ctx), err)
	}
	return nil
}

// allApplied: every operand converged: the CRs that are missing created, LWS Managed, and the
// objects of the last operand's clean run (which saw all the others converged) in place.
func (s *suite) allApplied(ctx context.Context) error {
	for _, o := range s.operands {
		if ok, _ := s.gone(o)(ctx); ok {
			if err := s.create(ctx, o); err != nil {
				return err
			}
		} else if o.removable {
			if err := s.setManagementState(ctx, o, "Managed"); err != nil {
				return err
			}
		}
	}
	ready := func(ctx context.Context) (bool, error) {
		for _, o := range s.operands {
			if ok, err := s.ready(o)(ctx); err != nil || !ok {
				return ok, err
			}
		}
		return true, nil
	}
	if _, d, err := s.settle(ctx, s.everything(), ready, s.timeout); err != nil {
		return fmt.Errorf("all operands back to converged: %v (the CRs say: %s): %w", d, s.conditions(ctx), err)
	}
	return nil
}

func (s *suite) everything() snapshot { return s.operands[len(s.operands)-1].applied }

func (s *suite) phases(o *operand) []phase {
	toApplied := func(ctx context.Context) error { return s.toApplied(ctx, o) }
	toAbsent := func(ctx context.Context) error { return s.toAbsent(ctx, o) }
	out := []phase{{id: "convergence", name: "convergence", reset: toAbsent, action: func(ctx context.Context) error { return s.create(ctx, o) },
		want: o.applied, ready: s.ready(o), writes: o.writes}}
	if o.removable {
		out = append(out, phase{id: "removal", name: "removal (Removed)", reset: toApplied,
			action: func(ctx context.Context) error { return s.setManagementState(ctx, o, "Removed") },
			want:   o.removed, ready: s.removedReady(o), writes: o.removeWrites})
	}
	if o.finalizer {
		out = append(out, phase{id: "deletion", name: "CR deletion (finalizer)", reset: toApplied,
			action: func(ctx context.Context) error { return s.remove(ctx, o) },
			want:   o.absent, ready: s.gone(o), writes: o.deleteWrites})
	}
	return out
}

// scenarioKill: for each operand and phase, SIGKILL the operator after the i-th of N points
// spread over the writes of a clean run, restart it, and check it converges to the clean
// run's objects.
//
// Each operand's clean runs were measured with the operands before it in the table converged
// and those after it absent, so the operands are taken last to first, each left without its CR
// at the end; then all are converged again for the scenarios that follow.
func (s *suite) scenarioKill(ctx context.Context) error {
	for n := len(s.operands) - 1; n >= 0; n-- {
		o := s.operands[n]
		for _, ph := range s.phases(o) {
			if !s.phaseNames[ph.id] {
				continue
			}
			for i := 1; i <= s.killPoints; i++ {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				// The k-th write, k spread evenly from the first write to the last.
				k := 1 + (i-1)*max(ph.writes-1, 0)/max(s.killPoints-1, 1)
				if err := s.killTrial(ctx, o, ph, i, k); err != nil {
					return fmt.Errorf("%s %s kill %d: %w", o.name, ph.name, i, err)
				}
			}
		}
		if err := s.toAbsent(ctx, o); err != nil {
			return err
		}
	}
	return s.allApplied(ctx)
}

func (s *suite) killTrial(ctx context.Context, o *operand, ph phase, i, k int) error {
	if err := ph.reset(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	if err := ph.action(ctx); err != nil {
		return err
	}
	// Kill at the k-th write, or when the phase is over without reaching it.
	polls := 0
	_ = live.Poll(ctx, 20*time.Millisecond, s.timeout, func() (bool, error) {
		if len(s.audit.Since(s.user, t0, isWrite)) >= k {
			return true, nil
		}
		polls++
		if polls%25 == 0 {
			return ph.ready(ctx)
		}
		return false, nil
	})
	if err := s.operator.Kill(ctx, s.proc); err != nil {
		return err
	}
	killed := time.Now()
	s.faults++
	n := len(s.audit.Since(s.user, t0, isWrite))
	if err := s.startOperator(ctx); err != nil {
		return err
	}
	return s.converged(ctx, fmt.Sprintf("%s %s, SIGKILL %d/%d after write %d (%d seen)", o.name, ph.name, i, s.killPoints, k, n), t0, killed, ph.want, ph.ready)
}

// converged waits for the clean run's objects after a fault at `fault`, and records the time,
// or the difference; then the leak and users' checks.
func (s *suite) converged(ctx context.Context, what string, t0, fault time.Time, want snapshot, ready func(context.Context) (bool, error)) error {
	proc := s.proc
	alive := func(ctx context.Context) (bool, error) {
		if !proc.Running() {
			return false, fmt.Errorf("the operator (pid %d) exited; see %s", proc.Pid, s.operator.Log)
		}
		if ready == nil {
			return true, nil
		}
		return ready(ctx)
	}
	at, d, err := s.settle(ctx, want, alive, s.timeout)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !proc.Running() {
			s.res.Fail("%s: the operator exited; see %s", what, s.operator.Log)
			logf("%s: the operator exited", what)
			return s.startOperator(ctx)
		}
		conds := s.conditions(ctx)
		s.res.Fail("%s: not converged within %s: %s; the CRs say: %s", what, s.timeout, strings.Join(d, "; "), conds)
		s.leaked += countExtra(d)
		logf("%s: NOT converged: %v; the CRs say: %s", what, d, conds)
		return nil
	}
	s.conv++
	t := at.Sub(fault).Seconds()
	s.times = append(s.times, t)
	logf("%s: converged %.1fs after the fault", what, t)
	snap, err := s.take(ctx)
	if err != nil {
		return err
	}
	if leaks := s.unlabelled(ctx, t0, snap); len(leaks) > 0 {
		s.leaked += len(leaks)
		s.res.Fail("%s: %s", what, strings.Join(leaks, "; "))
	}
	s.checkUsers(ctx, "after "+what)
	return nil
}

func countExtra(d []string) int {
	n := 0
	for _, l := range d {
		if strings.HasPrefix(l, "extra ") {
			n++
		}
	}
	return n
}

// restartAPIServer restarts kube-apiserver in place (hack/local-cluster.sh restart-apiserver).
func (s *suite) restartAPIServer() error {
	cmd := exec.Command(filepath.Join(s.root, "hack", "local-cluster.sh"), "restart-apiserver")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// scenarioAPIServer: kube-apiserver restarted during a convergence of the first operand, then
// while everything is idle. The operator must not restart, must converge, and once idle again
// must make no write after it reconnected.
func (s *suite) scenarioAPIServer(ctx context.Context) error {
	// The operator with library-go's lease timings for this scenario (a TERM releases the
	// lease, so the switch is quick), and back to the short ones after it.
	if err := s.operator.Stop(); err != nil {
		return err
	}
	short := s.operator
	s.operator = s.patient
	defer func() {
		if err := s.operator.Stop(); err == nil {
			s.operator = short
			if err := s.startOperator(ctx); err != nil {
				s.res.Fail("restart the operator after the API server scenario: %v", err)
			}
		}
	}()
	if err := s.startOperator(ctx); err != nil {
		return err
	}
	o := s.operands[len(s.operands)-1]
	ph := s.phases(o)[0]
	if err := ph.reset(ctx); err != nil {
		return err
	}
	proc := s.proc
	t0 := time.Now()
	if err := ph.action(ctx); err != nil {
		return err
	}
	_ = live.Poll(ctx, 20*time.Millisecond, s.timeout, func() (bool, error) {
		return len(s.audit.Since(s.user, t0, isWrite)) >= max(ph.writes/2, 1), nil
	})
	fault := time.Now()
	if err := s.restartAPIServer(); err != nil {
		return err
	}
	s.faults++
	if err := s.converged(ctx, o.name+" convergence, kube-apiserver restarted", t0, fault, ph.want, ph.ready); err != nil {
		return err
	}
	if !proc.Running() {
		s.res.Fail("the operator exited when kube-apiserver restarted during a convergence; see %s", s.operator.Log)
		return s.startOperator(ctx)
	}

	// Idle: everything converged and quiet, then the restart.
	if err := s.quietFor(ctx, 5*time.Second); err != nil {
		return err
	}
	fault = time.Now()
	if err := s.restartAPIServer(); err != nil {
		return err
	}
	s.faults++
	back := time.Now()
	// Reconnected: the operator's watches start again.
	err := live.Poll(ctx, 500*time.Millisecond, 2*time.Minute, func() (bool, error) {
		return len(s.audit.Since(s.user, back, func(e *live.AuditEvent) bool { return e.Verb == "watch" })) > 0, nil
	})
	if err != nil {
		s.res.Fail("the operator did not reconnect (no watch) within 2m after kube-apiserver restarted while idle")
		return nil
	}
	if err := s.converged(ctx, "idle, kube-apiserver restarted", fault, fault, s.everything(), nil); err != nil {
		return err
	}
	if !proc.Running() {
		s.res.Fail("the operator exited when kube-apiserver restarted while idle; see %s", s.operator.Log)
		return s.startOperator(ctx)
	}
	w := s.writesIn(ctx, s.quiet)
	s.res.Add("writes in the quiet window after kube-apiserver restarted", float64(len(w)), "")
	if len(w) > 0 {
		s.res.Fail("a quiet operator wrote after kube-apiserver restarted: %s", describeAll(w))
	}
	return nil
}

// quietFor waits until the operator made no write for d.
func (s *suite) quietFor(ctx context.Context, d time.Duration) error {
	return live.Poll(ctx, time.Second, s.timeout, func() (bool, error) {
		return len(s.audit.Since(s.user, time.Now().Add(-d), isWrite)) == 0, nil
	})
}

// writesIn watches the operator's writes for a window d from now (a measurement window, not a
// wait for something).
func (s *suite) writesIn(ctx context.Context, d time.Duration) []*live.AuditEvent {
	from := time.Now()
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
	return s.audit.Query(s.user, from, time.Now(), isWrite)
}

func describeAll(events []*live.AuditEvent) string {
	var parts []string
	for i, e := range events {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("... %d more", len(events)-10))
			break
		}
		parts = append(parts, e.Describe())
	}
	return strings.Join(parts, "; ")
}

// scenarioConflict: while the operator repairs drift of its LWS ConfigMap, someone else edits
// the same object between the operator's read and its write (an annotation, changing its
// resourceVersion) many times; the operator must retry, converge, and then stop writing.
func (s *suite) scenarioConflict(ctx context.Context) error {
	if s.operands[0].name != "lws" {
		return fmt.Errorf("the conflict scenario edits the LWS operand's ConfigMap: -operands must start with lws")
	}
	if err := s.allApplied(ctx); err != nil {
		return err
	}
	cms := s.kube.CoreV1().ConfigMaps(s.namespace)
	cm, err := cms.Get(ctx, "lws-manager-config", metav1.GetOptions{})
	if err != nil {
		return err
	}
	var key string
	for k := range cm.Data {
		key = k
	}
	t0 := time.Now()
	edits := 0
	for i := 0; i < 25 && ctx.Err() == nil; i++ {
		drift := fmt.Sprintf(`{"data":{%q:"drifted %d"}}`, key, i)
		if _, err := cms.Patch(ctx, cm.Name, types.MergePatchType, []byte(drift), metav1.PatchOptions{}); err != nil {
			return err
		}
		// Right behind the drift, while the operator reads and writes its repair.
		for j := 0; j < 3; j++ {
			touch := fmt.Sprintf(`{"metadata":{"annotations":{"reliability.llm-infra.io/touch":"%d-%d"}}}`, i, j)
			if _, err := cms.Patch(ctx, cm.Name, types.MergePatchType, []byte(touch), metav1.PatchOptions{}); err != nil {
				return err
			}
			edits++
			time.Sleep(30 * time.Millisecond) // the interleaving is the fault, not a wait
		}
		time.Sleep(200 * time.Millisecond)
	}
	fault := time.Now()
	s.faults++
	if err := s.converged(ctx, "LWS ConfigMap drifted and edited by someone else 25 times", t0, fault, s.everything(), s.ready(s.operands[0])); err != nil {
		return err
	}
	all := s.audit.Query(s.user, t0, time.Now(), isWrite)
	conflicts := 0
	for _, e := range all {
		if e.Code() == 409 {
			conflicts++
		}
	}
	s.res.Add("conflicts (409) met by the operator", float64(conflicts), "")
	s.res.Add("operator writes for 25 drifts under conflicting edits", float64(len(all)), "")
	logf("conflicts: %d writes by the operator, %d of them 409, for 25 drifts and %d foreign edits", len(all), conflicts, edits)
	if w := s.writesIn(ctx, s.quiet); len(w) > 0 {
		s.res.Fail("the operator kept writing after the conflicts (hot loop?): %s", describeAll(w))
	}
	return nil
}

// scenarioHostile: an object of a name the batch gateway operand manages, created by someone
// else without the operator's label, before its LLMBatchGateway: never overwritten or deleted,
// and reported in the CR's conditions.
func (s *suite) scenarioHostile(ctx context.Context) error {
	const ns, name = "rel-hostile", "batch-gateway-minimal"
	cmName := name + "-apiserver-config"
	cms := s.kube.CoreV1().ConfigMaps(ns)
	hostile, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cmName, Namespace: ns}, Data: map[string]string{"mine": "not the operator's"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	s.users = append(s.users, userObject{gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, namespace: ns, name: cmName, uid: hostile.UID})
	cr := crSpec{gvr: batchGVR, namespace: ns, manifest: "test/golden/batch-gateway/extra-minimal-sync-fs/cr.yaml"}
	obj, err := s.object(cr)
	if err != nil {
		return err
	}
	if _, err := s.client(batchGVR, ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return err
	}
	s.faults++
	fault := time.Now()
	var reported string
	err = live.Poll(ctx, time.Second, s.timeout, func() (bool, error) {
		cur, err := s.client(batchGVR, ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, t := range []string{"Degraded", "Ready"} {
			_, reason, msg := condition(cur, t)
			if reason == engine.ReasonObjectNotOwned || strings.Contains(msg, cmName) {
				reported = t + " " + reason + ": " + msg
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		s.res.Fail("the hostile ConfigMap %s/%s is not reported in the LLMBatchGateway's conditions", ns, cmName)
	} else {
		s.conv++
		s.times = append(s.times, time.Since(fault).Seconds())
		logf("hostile object reported: %s", reported)
	}
	check := func(when string) {
		cur, err := cms.Get(ctx, cmName, metav1.GetOptions{})
		switch {
		case err != nil:
			s.res.Fail("the hostile ConfigMap is gone %s: %v", when, err)
		case cur.UID != hostile.UID || cur.ResourceVersion != hostile.ResourceVersion || engine.IsManaged(cur.Labels):
			s.res.Fail("the hostile ConfigMap was changed %s (resourceVersion %s -> %s, labels %v)", when, hostile.ResourceVersion, cur.ResourceVersion, cur.Labels)
		}
	}
	check("while its LLMBatchGateway exists")
	if err := s.client(batchGVR, ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	if err := live.Poll(ctx, time.Second, s.timeout, func() (bool, error) {
		_, err := s.client(batchGVR, ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		return err
	}
	// Garbage collection of the CR's objects has run once the Deployments are gone.
	_ = live.Poll(ctx, time.Second, s.timeout, func() (bool, error) {
		l, err := s.kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{LabelSelector: batchgateway.PartOfLabel + "=" + batchgateway.PartOfValue})
		return err == nil && len(l.Items) == 0, nil
	})
	check("after its LLMBatchGateway was deleted")
	return nil
}

// scenarioLeader: a second operator process; the leader SIGKILLed while its operand drifts;
// the other takes over within the lease's bounds and repairs; the audit log never shows both
// writing at once.
func (s *suite) scenarioLeader(ctx context.Context) error {
	if err := s.allApplied(ctx); err != nil {
		return err
	}
	bin := s.secondBinary()
	if err := copyFile(envOf(s.operator.Env, "OPERATOR_BINARY"), bin); err != nil {
		return err
	}
	t0 := time.Now()
	second, err := s.second.Start()
	if err != nil {
		return err
	}
	defer func() { _ = s.second.Stop() }()
	if _, err := s.second.WaitHealthy(ctx, second, 2*time.Minute); err != nil {
		return err
	}
	leases := s.kube.CoordinationV1().Leases(s.namespace)
	lease, err := leases.Get(ctx, "llm-infra-operator-lock", metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the leader's lease: %w", err)
	}
	holder := ptrString(lease.Spec.HolderIdentity)
	// The standby must not write while the leader lives: a few seconds of both running.
	if err := s.quietFor(ctx, 5*time.Second); err != nil {
		return err
	}
	if err := s.operator.Kill(ctx, s.proc); err != nil {
		return err
	}
	killed := time.Now()
	s.faults++
	// The standby is the process that must converge, and stay alive, from here on.
	s.proc = second
	// Drift for the new leader to repair.
	if err := s.kube.CoreV1().ConfigMaps(s.namespace).Delete(ctx, "lws-manager-config", metav1.DeleteOptions{}); err != nil {
		return err
	}
	var took time.Duration
	err = live.Poll(ctx, 200*time.Millisecond, 5*time.Minute, func() (bool, error) {
		l, err := leases.Get(ctx, "llm-infra-operator-lock", metav1.GetOptions{})
		if err != nil || ptrString(l.Spec.HolderIdentity) == holder || ptrString(l.Spec.HolderIdentity) == "" {
			return false, nil
		}
		took = time.Since(killed)
		return true, nil
	})
	if err != nil {
		s.res.Fail("the standby operator did not take the lease over after the leader was killed")
		return nil
	}
	// The lease's bound: the standby sees the leader's last renewal up to one retry period late,
	// waits the lease duration from then, and tries again after one more retry period. client-go
	// jitters each retry period by up to leaderelection.JitterFactor (1.2) of itself; add the
	// poll interval of this check.
	lease0 := time.Duration(s.leaseSeconds) * time.Second
	retry := lease0 / 5
	maxRetry := retry + time.Duration(float64(retry)*leaderelection.JitterFactor)
	bound := lease0 + 2*maxRetry + 200*time.Millisecond
	s.res.Add("leader takeover after SIGKILL", took.Seconds(), "s")
	logf("leader election: the standby took over %.1fs after the leader was killed (lease %s, bound %s)", took.Seconds(), lease0, bound)
	if took > bound {
		s.res.Fail("the standby took the lease %.1fs after the leader died, beyond lease duration + 2 jittered retry periods (%s)", took.Seconds(), bound)
	}
	if err := s.converged(ctx, "leader SIGKILLed, the standby repairs", killed, killed, s.everything(), s.ready(s.operands[0])); err != nil {
		return err
	}
	// Two writers: every write of the first process before every write of the second, and the
	// second's first write after the first was killed.
	var lastFirst, firstSecond time.Time
	for _, e := range s.audit.Query(s.user, t0, time.Now(), isWrite) {
		if strings.HasPrefix(e.UserAgent, filepath.Base(bin)+"/") {
			if firstSecond.IsZero() || e.Received.Before(firstSecond) {
				firstSecond = e.Received
			}
		} else if e.Done.After(lastFirst) {
			lastFirst = e.Done
		}
	}
	if firstSecond.IsZero() {
		s.res.Fail("the new leader made no write (the audit log shows none with user agent %s/...)", filepath.Base(bin))
	} else if firstSecond.Before(killed) || (!lastFirst.IsZero() && !firstSecond.After(lastFirst)) {
		s.res.Fail("two operator processes wrote at once: the standby's first write at %s, the leader's last at %s, killed at %s",
			firstSecond.Format(time.RFC3339Nano), lastFirst.Format(time.RFC3339Nano), killed.Format(time.RFC3339Nano))
	}
	s.res.Add("overlapping writes of two operator processes", boolNum(!firstSecond.IsZero() && firstSecond.Before(killed)), "")
	// Back to one process, the main one, for what follows.
	if err := s.second.Stop(); err != nil {
		return err
	}
	return s.startOperator(ctx)
}

func boolNum(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func envOf(env []string, name string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, name+"="); ok {
			return v
		}
	}
	return ""
}

func (s *suite) secondBinary() string { return envOf(s.second.Env, "OPERATOR_BINARY") }

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// checkSecrets greps the operator's logs, every Event, the CRs (status included) and the
// audit log for the seeded Secret values.
func (s *suite) checkSecrets(ctx context.Context) error {
	var haystacks []struct {
		what string
		data []byte
	}
	add := func(what string, data []byte) {
		haystacks = append(haystacks, struct {
			what string
			data []byte
		}{what, data})
	}
	for _, l := range s.logs {
		if data, err := os.ReadFile(l); err == nil {
			add(l, data)
		}
	}
	if data, err := os.ReadFile(s.auditPath); err == nil {
		add("the audit log", data)
	}
	resources := []schema.GroupVersionResource{{Version: "v1", Resource: "events"}}
	for _, r := range operands.All() {
		resources = append(resources, r.GVR())
	}
	for _, g := range resources {
		list, err := s.dyn.Resource(g).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		data, err := list.MarshalJSON()
		if err == nil {
			add(resourceKey(g), data)
		}
	}
	hits := 0
	for _, v := range s.secrets {
		for _, h := range haystacks {
			if bytes.Contains(h.data, []byte(v)) {
				hits++
				s.res.Fail("a seeded Secret value appears in %s", h.what)
			}
		}
	}
	s.res.Add("secret hits", float64(hits), "")
	logf("secrets: %d seeded values, %d places searched, %d hits", len(s.secrets), len(haystacks), hits)
	return nil
}

// scenarioUninstall: the operands' CRs deleted (the operator cleans up), the operator stopped,
// then everything of deploy/ deleted, CRDs included, as `kubectl delete -f deploy/` does: the
// users' objects must all be there afterwards.
func (s *suite) scenarioUninstall(ctx context.Context) error {
	for _, o := range s.operands {
		if err := s.remove(ctx, o); err != nil {
			return err
		}
		if err := live.Poll(ctx, time.Second, s.timeout, bind(ctx, s.gone(o))); err != nil {
			s.res.Fail("%s: the CR was not deleted (finalizer stuck?) before uninstalling", o.name)
		}
	}
	if err := s.operator.Stop(); err != nil {
		return err
	}
	kubectl := filepath.Join(s.root, "_output", "bin", "kubectl")
	cmd := exec.CommandContext(ctx, kubectl, "delete", "--ignore-not-found", "--timeout=3m", "-f", filepath.Join(s.root, "deploy"))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		s.res.Fail("kubectl delete -f deploy/: %v", err)
	}
	s.checkUsers(ctx, "after uninstalling deploy/")
	s.res.Add("user objects counted", float64(len(s.users)), "")
	return nil
}

// bind makes a check of a context a check for live.Poll.
func bind(ctx context.Context, check func(context.Context) (bool, error)) func() (bool, error) {
	return func() (bool, error) { return check(ctx) }
}
