package engine

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// table is the kind's whole reconcile table: the operand's steps, the render, then one step per
// kind of asset in the order of the asset table.
func (k *Kind[T, S]) table() ([]Step[*Run[T, S]], error) {
	steps := append([]Step[*Run[T, S]]{}, k.Steps...)
	steps = append(steps, Step[*Run[T, S]]{Name: "render", Apply: func(_ context.Context, run *Run[T, S], _ []string) error {
		return run.render()
	}})
	index := map[string]int{}
	for _, a := range k.Assets {
		kind, err := ManifestKind(k.Manifests, a.Path)
		if err != nil {
			return nil, err
		}
		name := kind.Kind
		if n, ok := k.StepNames[kind.Kind]; ok {
			name = n
		}
		i, ok := index[name]
		if !ok {
			i = len(steps)
			index[name] = i
			steps = append(steps, Step[*Run[T, S]]{Name: name})
		}
		steps[i].Assets = append(steps[i].Assets, a.Path)
	}
	return steps, nil
}

// assetsByPath is the kind's asset table by path.
func (k *Kind[T, S]) assetsByPath() map[string]Asset {
	assets := make(map[string]Asset, len(k.Assets))
	for _, a := range k.Assets {
		assets[a.Path] = a
	}
	return assets
}

// stamp is the Renderer that sets the operator's labels and a controller owner reference to cr
// (blockOwnerDeletion: garbage collection deletes the objects with the CR).
func (k *Kind[T, S]) stamp(cr T) Renderer {
	return Renderer{
		Manifests: k.Manifests,
		Labels:    map[string]string{PartOfLabel: k.PartOf},
		Owner: &metav1.OwnerReference{
			APIVersion:         k.GVK.GroupVersion().String(),
			Kind:               k.GVK.Kind,
			Name:               cr.GetName(),
			UID:                cr.GetUID(),
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(true),
		},
	}
}

// render renders every asset for the CR into run.Rendered. A spec the operand cannot run with
// (the CRD's rules normally stop it earlier) stops the sync: nothing is applied, and what runs
// keeps running.
func (run *Run[T, S]) render() error {
	objs, err := run.kind.renderAssets(run)
	if err != nil {
		if run.kind.RenderFailed != nil {
			return run.kind.RenderFailed(err)
		}
		return MissingDependency(ReasonApplyFailed, "the spec cannot be rendered: %v", err)
	}
	run.Rendered = make(map[string]Rendered, len(objs))
	for _, ro := range objs {
		run.Rendered[ro.Asset] = ro
	}
	return nil
}

// renderAssets is the operand's render completed by what the engine derives from it (the
// PodDisruptionBudgets of its Deployments).
func (k *Kind[T, S]) renderAssets(run *Run[T, S]) ([]Rendered, error) {
	objs, err := k.Render(run)
	if err != nil {
		return nil, err
	}
	if err := setDisruptionBudgets(k.Assets, objs); err != nil {
		return nil, err
	}
	return objs, nil
}

// RenderCR returns the objects a sync applies for cr (those the spec asks for), in the order it
// applies them, as it applies them (labels, owner reference, every Deployment prepared as the
// sync prepares it), from a run without a cluster: referenced objects are missing, steps before
// the render do not run. Unit, golden and fuzz tests and the dry-run suite use it. It renders
// for Kubernetes; RenderCROn for another platform.
func (k *Kind[T, S]) RenderCR(cr T) ([]runtime.Object, error) { return k.RenderCROn(cr, Kubernetes) }

// RenderCROn is RenderCR on platform.
func (k *Kind[T, S]) RenderCROn(cr T, platform Platform) ([]runtime.Object, error) {
	run := &Run[T, S]{
		platform: KnownPlatform(platform),
		CR:       cr,
		Key:      cr.GetNamespace() + "/" + cr.GetName(),
		Applier:  Applier{Clients: &CachedClients{Caches: NewCaches()}},
		Stamp:    k.stamp(cr),
		Rendered: map[string]Rendered{},
		Applied:  map[string]*appsv1.Deployment{},
		kind:     k,
	}
	run.State = k.NewState(cr)
	objs, err := k.renderAssets(run)
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	for _, ro := range objs {
		if !ro.Wanted {
			continue
		}
		m, err := meta.Accessor(ro.Object)
		if err != nil {
			return nil, err
		}
		run.Stamp.Stamp(m)
		if d, ok := ro.Object.(*appsv1.Deployment); ok {
			if err := run.prepareDeployment(d); err != nil {
				return nil, err
			}
		}
		out = append(out, ro.Object)
	}
	return out, nil
}
