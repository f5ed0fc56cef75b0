package engine

import (
	"fmt"
	"slices"
	"sync"

	securityv1 "github.com/openshift/api/security/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
)

// Platform is the kind of cluster the operands run on, where it changes what a pod may ask for.
type Platform string

const (
	// Kubernetes is any cluster that is not OpenShift: a pod names its own user and fsGroup.
	Kubernetes Platform = "Kubernetes"
	// OpenShift admits pods through SecurityContextConstraints: under restricted-v2 (every
	// authenticated user's) the SCC assigns the user and fsGroup from the namespace's ranges
	// (openshift.io/sa.scc.uid-range, supplemental-groups) and rejects any outside them, so a
	// pod names neither.
	OpenShift Platform = "OpenShift"
)

// PlatformProbe says which Platform the cluster is, asked once through discovery and kept: the
// answer cannot change while the operator runs. A failed request is asked again next time. The
// starter makes one for every kind (NamespacedDeps.Platform).
type PlatformProbe struct {
	discovery discovery.ServerGroupsInterface
	mu        sync.Mutex
	known     *Platform
}

// NewPlatformProbe asks d.
func NewPlatformProbe(d discovery.ServerGroupsInterface) *PlatformProbe {
	return &PlatformProbe{discovery: d}
}

// KnownPlatform is a probe that answers p without asking: renders without a cluster, tests.
func KnownPlatform(p Platform) *PlatformProbe { return &PlatformProbe{known: &p} }

// Platform is OpenShift when the API server serves security.openshift.io (the API group of
// SecurityContextConstraints: served on OpenShift, nowhere else), else Kubernetes. A nil
// probe (a render without a cluster) answers Kubernetes.
func (p *PlatformProbe) Platform() (Platform, error) {
	if p == nil {
		return Kubernetes, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.known != nil {
		return *p.known, nil
	}
	groups, err := p.discovery.ServerGroups()
	if err != nil {
		return "", fmt.Errorf("discover whether the cluster is OpenShift (API group %s): %w", securityv1.GroupName, err)
	}
	platform := Kubernetes
	if slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == securityv1.GroupName }) {
		platform = OpenShift
	}
	p.known = &platform
	return platform, nil
}
