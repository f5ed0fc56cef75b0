package batchgateway

import (
	"fmt"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
)

// openShiftSCCGroup is the API group of OpenShift's SecurityContextConstraints: served on
// OpenShift, nowhere else.
const openShiftSCCGroup = "security.openshift.io"

// platformProbe says whether the cluster is OpenShift, asked once through discovery: the answer
// decides who sets a pod's fsGroup (withFSGroup). A failed request is asked again next time.
type platformProbe struct {
	discovery discovery.ServerGroupsInterface
	mu        sync.Mutex
	known     bool
	openShift bool
}

// OpenShift says whether the API server serves security.openshift.io.
func (p *platformProbe) OpenShift() (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.known {
		return p.openShift, nil
	}
	groups, err := p.discovery.ServerGroups()
	if err != nil {
		return false, fmt.Errorf("discover whether the cluster is OpenShift (API group %s): %w", openShiftSCCGroup, err)
	}
	p.openShift = slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == openShiftSCCGroup })
	p.known = true
	return p.openShift, nil
}
