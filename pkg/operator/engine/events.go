package engine

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/operator/events"
)

// EventSink builds the recorder of one CR, so that events land on the object they are about
// (`kubectl describe`).
type EventSink func(gvk schema.GroupVersionKind, cr metav1.Object) events.Recorder

// KubeEventSink records events with the API through the core client. library-go's plain
// recorder creates each event synchronously and starts no goroutine, so one per sync is cheap;
// the engine emits events on transitions only.
func KubeEventSink(client corev1client.EventsGetter, clk clock.PassiveClock) EventSink {
	return func(gvk schema.GroupVersionKind, m metav1.Object) events.Recorder {
		return events.NewRecorder(client.Events(m.GetNamespace()), "llm-infra-operator", &corev1.ObjectReference{
			APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
			Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID(),
		}, clk)
	}
}

// objectWriteLogLevel is the klog verbosity of the operator's writes of single objects.
const objectWriteLogLevel = 2

// LogNormalEvents wraps the recorder the Applier hands resourceapply: resourceapply records a
// Normal event for every object it creates or updates (ServiceAccountCreated,
// DeploymentUpdated, ...), about ten per CR coming up, which drown the events a user acts on
// (Ready, a missing Secret) and cost a write each. Those go to the log (klog, verbosity 2)
// instead; warnings (a failed write, an object left in place) still reach the CR.
func LogNormalEvents(recorder events.Recorder) events.Recorder {
	if recorder == nil {
		return nil
	}
	if _, ok := recorder.(normalToLog); ok {
		return recorder
	}
	return normalToLog{recorder}
}

// normalToLog records Normal events in the log and everything else with the recorder it wraps.
type normalToLog struct {
	events.Recorder
}

func (r normalToLog) Event(reason, message string) {
	klog.V(objectWriteLogLevel).InfoS("Operand object written", "component", r.ComponentName(), "reason", reason, "message", message)
}

func (r normalToLog) Eventf(reason, messageFmt string, args ...any) {
	if klog.V(objectWriteLogLevel).Enabled() {
		r.Event(reason, fmt.Sprintf(messageFmt, args...))
	}
}

func (r normalToLog) ForComponent(componentName string) events.Recorder {
	return normalToLog{r.Recorder.ForComponent(componentName)}
}

func (r normalToLog) WithComponentSuffix(suffix string) events.Recorder {
	return normalToLog{r.Recorder.WithComponentSuffix(suffix)}
}

func (r normalToLog) WithContext(ctx context.Context) events.Recorder {
	return normalToLog{r.Recorder.WithContext(ctx)}
}

// warningHold holds the warnings of one attempt to apply, for the Applier to record or drop
// once it knows what the attempt's failure means (a create that found the name taken is no
// failure: the Applier reads the object and applies over it).
type warningHold struct {
	events.Recorder
	held []heldWarning
}

type heldWarning struct{ reason, message string }

// holdWarnings wraps recorder (nil: nothing to record).
func holdWarnings(recorder events.Recorder) *warningHold {
	return &warningHold{Recorder: recorder}
}

func (h *warningHold) Warning(reason, message string) {
	h.held = append(h.held, heldWarning{reason, message})
}

func (h *warningHold) Warningf(reason, messageFmt string, args ...any) {
	h.Warning(reason, fmt.Sprintf(messageFmt, args...))
}

// flush records the warnings held.
func (h *warningHold) flush() {
	if h == nil {
		return
	}
	for _, w := range h.held {
		h.Recorder.Warning(w.reason, w.message)
	}
	h.held = nil
}

// drop logs the warnings held instead of recording them.
func (h *warningHold) drop() {
	if h == nil {
		return
	}
	for _, w := range h.held {
		klog.V(objectWriteLogLevel).InfoS("Create found the name taken; reading the object", "reason", w.reason, "message", w.message)
	}
	h.held = nil
}
