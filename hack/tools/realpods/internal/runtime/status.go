package runtime

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// status is the pod's status as the kubelet would report it. Called with the pod's lock held.
func (p *Pod) status() corev1.PodStatus {
	old := p.pod.Status
	st := corev1.PodStatus{
		HostIP:    p.rt.cfg.NodeIP,
		HostIPs:   []corev1.HostIP{{IP: p.rt.cfg.NodeIP}},
		StartTime: &p.startTime,
		QOSClass:  old.QOSClass,
	}
	if p.ip != nil {
		st.PodIP = p.ip.String()
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	}
	for _, c := range p.inits {
		st.InitContainerStatuses = append(st.InitContainerStatuses, c.status())
	}
	for _, c := range p.containers {
		st.ContainerStatuses = append(st.ContainerStatuses, c.status())
	}
	st.Phase = p.phase(st)
	now := metav1.Now()
	cond := func(t corev1.PodConditionType, ok bool, reason, msg string) {
		c := corev1.PodCondition{Type: t, Status: corev1.ConditionFalse, Reason: reason, Message: msg, LastTransitionTime: now}
		if ok {
			c.Status, c.Reason, c.Message = corev1.ConditionTrue, "", ""
		}
		for _, o := range old.Conditions {
			if o.Type == t && o.Status == c.Status {
				c.LastTransitionTime = o.LastTransitionTime
			}
		}
		st.Conditions = append(st.Conditions, c)
	}
	cond(corev1.PodReadyToStartContainers, p.sandboxUp, "", p.sandboxMsg)
	var incompleteInits, unready []string
	for _, c := range p.inits {
		if !c.sidecar() && (c.state.Terminated == nil || c.state.Terminated.ExitCode != 0) {
			incompleteInits = append(incompleteInits, c.spec.Name)
		}
	}
	if p.initsDone {
		incompleteInits = nil
	}
	cond(corev1.PodInitialized, len(incompleteInits) == 0, "ContainersNotInitialized",
		fmt.Sprintf("containers with incomplete status: %s", sortedNames(incompleteInits)))
	for _, c := range append(append([]*Container{}, p.inits...), p.containers...) {
		if (!c.init || c.sidecar()) && !c.ready {
			unready = append(unready, c.spec.Name)
		}
	}
	terminal := st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed
	ready := len(unready) == 0 && p.initsDone && !terminal && !p.terminating
	reason, msg := "ContainersNotReady", fmt.Sprintf("containers with unready status: %s", sortedNames(unready))
	if terminal {
		reason, msg = "PodCompleted", ""
	}
	cond(corev1.ContainersReady, ready, reason, msg)
	cond(corev1.PodReady, ready, reason, msg)
	// Conditions others own (PodScheduled, readiness gates' types) stay as they are.
	for _, o := range old.Conditions {
		switch o.Type {
		case corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady:
		default:
			st.Conditions = append(st.Conditions, o)
		}
	}
	if p.sandboxMsg != "" && !p.sandboxUp {
		st.Message = p.sandboxMsg
	}
	return st
}

// phase follows the kubelet's getPhase.
func (p *Pod) phase(st corev1.PodStatus) corev1.PodPhase {
	if p.failed {
		return corev1.PodFailed
	}
	if !p.sandboxUp || !p.initsDone {
		return corev1.PodPending
	}
	var running, waiting, stopped, failed, succeeded int
	for _, cs := range st.ContainerStatuses {
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			} else {
				failed++
			}
		case cs.State.Waiting != nil:
			if cs.LastTerminationState.Terminated != nil {
				stopped++
			} else {
				waiting++
			}
		}
	}
	switch {
	case waiting > 0:
		return corev1.PodPending
	case running > 0:
		return corev1.PodRunning
	case stopped > 0:
		switch p.pod.Spec.RestartPolicy {
		case corev1.RestartPolicyAlways:
			if p.terminating {
				return terminalPhase(failed)
			}
			return corev1.PodRunning
		case corev1.RestartPolicyOnFailure:
			if succeeded == len(st.ContainerStatuses) {
				return corev1.PodSucceeded
			}
			if p.terminating {
				return terminalPhase(failed)
			}
			return corev1.PodRunning
		default:
			return terminalPhase(failed)
		}
	}
	return corev1.PodPending
}

func terminalPhase(failed int) corev1.PodPhase {
	if failed > 0 {
		return corev1.PodFailed
	}
	return corev1.PodSucceeded
}

// status of one container. Called with the pod's lock held.
func (c *Container) status() corev1.ContainerStatus {
	started := c.started && c.state.Running != nil
	cs := corev1.ContainerStatus{
		Name:                 c.spec.Name,
		Image:                c.spec.Image,
		ImageID:              c.spec.Image,
		State:                c.state,
		LastTerminationState: c.last,
		Ready:                c.ready && c.state.Running != nil,
		RestartCount:         c.restartCount,
		Started:              &started,
	}
	if c.instance > 0 && (c.state.Running != nil || c.state.Terminated != nil) {
		cs.ContainerID = c.containerID()
	}
	return cs
}
