package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
)

// Run is the sync of one namespaced CR: what the engine hands the operand's steps, its render
// and its status writer, and how it applies one asset (ApplyAsset).
type Run[T Object, S any] struct {
	// CR is a copy of the CR as the informer held it when the sync started.
	CR T
	// Key is the CR's queue key, "namespace/name".
	Key string
	// State is the operand's own state of this sync.
	State S
	// Recorder records events on the CR.
	Recorder events.Recorder
	// Applier applies the CR's objects: reads from the kind's caches, takes over only objects
	// this CR controls or the operator labelled, removes annotations a CR no longer renders.
	Applier Applier
	// Stamp sets the operator's labels and the controller owner reference to the CR.
	Stamp Renderer
	// Rendered holds every asset rendered for the CR, by path, once the render step ran.
	Rendered map[string]Rendered
	// Applied are the Deployments this sync applied, by name: only their generations may be
	// recorded in status (recording one someone else edited would keep the edit forever).
	Applied map[string]*appsv1.Deployment
	// Invalid says why the spec is invalid (the kind's Validate); nothing was applied then.
	Invalid *StepError
	// RequeueAfter is when to sync the CR again though no event comes (After sets it).
	RequeueAfter time.Duration

	// What the run takes from its controller; a run without a cluster (RenderCR) has only the
	// kind.
	kind        *Kind[T, S]
	platform    *PlatformProbe
	assets      map[string]Asset
	optional    *OptionalAPIs
	references  map[schema.GroupResource]*ReferenceWatches
	generations *deploymentGenerations
}

// References watches the referenced objects of one resource the kind declares: Set the ones
// the CR references, Get them from their watch. A run without a cluster (Render) watches
// nothing: every Get fails.
func (run *Run[T, S]) References(gr schema.GroupResource) *ReferenceWatches {
	if w, ok := run.references[gr]; ok {
		return w
	}
	return unwatched(gr)
}

// Caches are the kind's caches (empty in a run without a cluster).
func (run *Run[T, S]) Caches() *Caches { return run.Applier.Clients.Caches }

// Optional are the optional APIs (nil in a run without a cluster).
func (run *Run[T, S]) Optional() *OptionalAPIs { return run.optional }

// CachedDeployment is the cached Deployment of that name that the CR controls, or nil: a CR
// of another kind and the same name may have a Deployment of the same name.
func (run *Run[T, S]) CachedDeployment(name string) *appsv1.Deployment {
	obj, err := run.Caches().Get(Deployments, run.CR.GetNamespace(), name)
	if err != nil {
		return nil
	}
	d, _ := obj.(*appsv1.Deployment)
	if d == nil || !ControlledBy(run.CR)(d) {
		return nil
	}
	return d
}

// RecordGenerations records the generations of the Deployments this sync applied in a status's
// GenerationStatus list (for a kind whose status has one: Kind.Generations).
func (run *Run[T, S]) RecordGenerations(generations *[]operatorv1.GenerationStatus) {
	for _, d := range run.Applied {
		resourcemerge.SetDeploymentGeneration(generations, d)
	}
}

// After asks for the CR to be synced again within d: what a kind whose state changes outside
// the cluster (a provider's allocation) needs, since no event announces it. The shortest of
// the delays asked for during one sync wins.
func (run *Run[T, S]) After(d time.Duration) {
	if d > 0 && (run.RequeueAfter == 0 || d < run.RequeueAfter) {
		run.RequeueAfter = d
	}
}

// ApplyAsset applies one rendered object, or, when the CR does not ask for it, deletes the
// object of that name if this CR's operator made it. An object of an optional API needs its
// CRD: asking for one without it is reported, naming the CRD and the field (or noted, for a
// best-effort asset).
func (run *Run[T, S]) ApplyAsset(ctx context.Context, asset string) error {
	ro, ok := run.Rendered[asset]
	if !ok {
		return fmt.Errorf("%s was not rendered", asset)
	}
	if u, isCustom := ro.Object.(*unstructured.Unstructured); isCustom {
		gvr, err := ResourceFor(u.GroupVersionKind())
		if err != nil {
			return err
		}
		if err := run.Optional().Installed(gvr); err != nil {
			if !ro.Wanted {
				return nil // without the CRD, nothing of that kind exists
			}
			a := run.assets[asset]
			feature := a.Feature
			if feature == "" {
				feature = "the spec"
			}
			if run.bestEffort(asset) {
				return Note("no %s for %s: its CustomResourceDefinition %s is not installed (%s)", u.GetKind(), feature, CRDName(gvr), a.SkippedWithoutCRD)
			}
			return Problem(ReasonCRDMissing,
				"%s asks for a %s, whose CustomResourceDefinition %s is not installed: install it and the operator creates the object without a restart, or turn %s off",
				feature, u.GetKind(), CRDName(gvr), feature)
		}
	}
	if !ro.Wanted {
		return run.Applier.DeleteObject(ctx, ro.Object, ControlledBy(run.CR), FromCache)
	}
	m, err := meta.Accessor(ro.Object)
	if err != nil {
		return err
	}
	run.Stamp.Stamp(m)
	if d, isDeployment := ro.Object.(*appsv1.Deployment); isDeployment {
		if err := run.prepareDeployment(d); err != nil {
			return err
		}
		actual, err := run.Applier.applyDeployment(ctx, d, run.expectedGeneration(d))
		if err != nil {
			return err
		}
		run.Applied[d.Name] = actual
		if run.kind.Generations == nil {
			run.generations.remember(run.Key, actual)
		}
		return nil
	}
	err = run.Applier.Apply(ctx, ro.Object)
	var se *StepError
	if errors.As(err, &se) && se.Reason == ReasonObjectNotOwned && run.bestEffort(asset) {
		// Someone else's object of the name, where the CR did not ask for ours: theirs stays,
		// and it is no problem of the CR's.
		return Note("%s: the operator creates none while it is there", se.Message)
	}
	return err
}

// bestEffort says whether an asset is best effort for the run's CR: declared so
// (Asset.SkippedWithoutCRD), and not asked for by name (Kind.Required).
func (run *Run[T, S]) bestEffort(asset string) bool {
	if run.assets[asset].SkippedWithoutCRD == "" {
		return false
	}
	return run.kind.Required == nil || !run.kind.Required(run.CR, asset)
}

// prepareDeployment is what every Deployment goes through before it is applied: the kind's
// PrepareDeployment, then its PodSecurity on the cluster's platform.
func (run *Run[T, S]) prepareDeployment(d *appsv1.Deployment) error {
	platform, err := run.Platform()
	if err != nil {
		return err
	}
	var hooks []DeploymentHook
	if run.kind.PrepareDeployment != nil {
		hooks = append(hooks, func(d *appsv1.Deployment) error { return run.kind.PrepareDeployment(run, d) })
	}
	return RunHooks(d, append(hooks, run.kind.PodSecurity.Hooks(platform)...)...)
}

// Platform is the cluster's platform (Kubernetes in a render without a cluster).
func (run *Run[T, S]) Platform() (Platform, error) { return run.platform.Platform() }

// expectedGeneration is the generation the operator last wrote of a Deployment: from the CR's
// status, or, for a kind without Generations, from memory, else the live one.
func (run *Run[T, S]) expectedGeneration(d *appsv1.Deployment) int64 {
	if run.kind.Generations != nil {
		return resourcemerge.ExpectedDeploymentGeneration(d, run.kind.Generations(run.CR))
	}
	if generation, ok := run.generations.get(run.Key, d.Name); ok {
		return generation
	}
	if live := run.CachedDeployment(d.Name); live != nil {
		return live.Generation
	}
	return -1
}

// deploymentGenerations remembers the generation of each Deployment a controller applied, by
// CR key and Deployment name, for a kind whose status does not record them.
type deploymentGenerations struct {
	mu          sync.Mutex
	generations map[string]map[string]int64
}

func newDeploymentGenerations() *deploymentGenerations {
	return &deploymentGenerations{generations: map[string]map[string]int64{}}
}

func (g *deploymentGenerations) get(key, name string) (int64, bool) {
	if g == nil {
		return 0, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	generation, ok := g.generations[key][name]
	return generation, ok
}

func (g *deploymentGenerations) remember(key string, d *appsv1.Deployment) {
	if g == nil || d == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.generations[key] == nil {
		g.generations[key] = map[string]int64{}
	}
	g.generations[key][d.Name] = d.Generation
}

// forget drops what was remembered of a CR that is gone.
func (g *deploymentGenerations) forget(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.generations, key)
}
