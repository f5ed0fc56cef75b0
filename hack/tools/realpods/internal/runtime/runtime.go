// Package runtime is the agent's pods: a pod whose containers' images are all in the image table
// runs for real (a network namespace on the hub, volumes, one sandboxed process per container,
// probes, restarts with back-off, graceful deletion); any other pod is simulated, Running and
// Ready at once as kwok makes it. Its Provider is virtual-kubelet's pod lifecycle handler.
package runtime

import (
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/backoff"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/imagetable"
	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/netx"
)

// Config is what the runtime needs.
type Config struct {
	// StateDir holds per-pod state (volumes, container roots and specs, pid files).
	StateDir string
	// LogDir holds container logs: <ns>_<pod>_<uid>/<container>/<restartCount>.log.
	LogDir string
	// ClaimDir holds the directories of PersistentVolumeClaims without a host path.
	ClaimDir      string
	AgentBinary   string
	Table         *imagetable.Table
	Hub           *netx.Hub
	Spawner       *netx.Spawner
	IPAM          *IPAM
	NodeIP        string
	ClusterDomain string
	Backoff       backoff.Policy
	// Allocatable of each node (a resource limit's default in the downward API).
	Allocatable corev1.ResourceList
	Client      kubernetes.Interface
	Secrets     corev1listers.SecretLister
	ConfigMaps  corev1listers.ConfigMapLister
	Services    corev1listers.ServiceLister
	PVCs        corev1listers.PersistentVolumeClaimLister
	PVs         corev1listers.PersistentVolumeLister
	// Pods is the cache of every pod of the cluster: the orphan sweep's view of the API.
	Pods corev1listers.PodLister
	Log  *log.Logger
}

// Runtime holds every pod of the agent's nodes.
type Runtime struct {
	cfg Config

	mu     sync.Mutex
	pods   map[types.UID]*Pod
	notify map[string]func(*corev1.Pod) // by node name
	// absent holds the pods the last orphan sweep did not find in the API.
	absent map[types.UID]bool
}

// New makes the runtime.
func New(cfg Config) *Runtime {
	return &Runtime{cfg: cfg, pods: map[types.UID]*Pod{}, notify: map[string]func(*corev1.Pod){}}
}

// Real says whether a pod runs for real: every container's image is in the table, and the pod
// has a network of its own (hostNetwork pods stay simulated).
func (r *Runtime) Real(pod *corev1.Pod) bool {
	if pod.Spec.HostNetwork {
		return false
	}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if _, ok := r.cfg.Table.Lookup(c.Image); !ok {
			return false
		}
	}
	return true
}

func (r *Runtime) find(namespace, name string) *Pod {
	r.mu.Lock()
	defer r.mu.Unlock()
	var found *Pod
	for _, p := range r.pods {
		if p.key.Namespace == namespace && p.key.Name == name {
			// The newest wins when a pod of the same name is still terminating.
			if found == nil || p.created.After(found.created) {
				found = p
			}
		}
	}
	return found
}

// create starts a pod (idempotent by UID).
func (r *Runtime) create(pod *corev1.Pod) {
	r.mu.Lock()
	if _, ok := r.pods[pod.UID]; ok {
		r.mu.Unlock()
		return
	}
	p := newPod(r, pod)
	r.pods[pod.UID] = p
	r.mu.Unlock()
	go p.run()
}

func (r *Runtime) forget(p *Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pods[p.uid] == p {
		delete(r.pods, p.uid)
	}
}

func (r *Runtime) publish(pod *corev1.Pod) {
	r.mu.Lock()
	f := r.notify[pod.Spec.NodeName]
	r.mu.Unlock()
	if f != nil {
		f(pod)
	}
}

// Shutdown stops every pod's processes (the agent is going away): TERM, then KILL after at most
// grace; nothing is written to the API.
func (r *Runtime) Shutdown(grace time.Duration) {
	r.mu.Lock()
	pods := make([]*Pod, 0, len(r.pods))
	for _, p := range r.pods {
		pods = append(pods, p)
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range pods {
		wg.Add(1)
		go func(p *Pod) {
			defer wg.Done()
			p.stop(grace, false)
		}(p)
	}
	wg.Wait()
}

// forceDelete removes a terminated pod from the API, as the kubelet does once its containers are
// gone (UID precondition: never a newer pod of the same name).
func (r *Runtime) forceDelete(pod *corev1.Pod) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := metav1.NewDeleteOptions(0)
	opts.Preconditions = metav1.NewUIDPreconditions(string(pod.UID))
	err := r.cfg.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, *opts)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		r.cfg.Log.Printf("pod %s/%s: delete from the API: %v", pod.Namespace, pod.Name, err)
	}
}

// podDir is a pod's state directory.
func (r *Runtime) podDir(uid types.UID) string {
	return filepath.Join(r.cfg.StateDir, "pods", string(uid))
}

// logDir is a container's log directory, as the kubelet names it.
func (r *Runtime) logDir(pod *corev1.Pod, container string) string {
	return filepath.Join(r.cfg.LogDir, fmt.Sprintf("%s_%s_%s", pod.Namespace, pod.Name, pod.UID), container)
}

// ClaimPath is the host directory behind a PVC: the bound PV's hostPath or local path, else a
// directory of its own under ClaimDir; created root-owned 0755 when missing, like the root of a
// fresh block volume, so that fsGroup (or its absence) matters as on a real cluster.
func (r *Runtime) ClaimPath(ctx context.Context, namespace, claim string) (string, error) {
	pvc, err := r.cfg.PVCs.PersistentVolumeClaims(namespace).Get(claim)
	if err != nil {
		return "", fmt.Errorf("persistentvolumeclaim %q: %w", claim, err)
	}
	dir := ""
	if pvc.Spec.VolumeName != "" {
		if pv, err := r.cfg.PVs.Get(pvc.Spec.VolumeName); err == nil {
			switch {
			case pv.Spec.HostPath != nil:
				dir = pv.Spec.HostPath.Path
			case pv.Spec.Local != nil:
				dir = pv.Spec.Local.Path
			}
		}
	}
	if dir == "" {
		dir = filepath.Join(r.cfg.ClaimDir, namespace, claim+"-"+string(pvc.UID))
	}
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := os.Chown(dir, 0, 0); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// sources reads Secrets and ConfigMaps from the caches, falling back to the API for a miss (a
// pod may be created right after its Secret).
type sources struct{ r *Runtime }

func (s sources) ConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	cm, err := s.r.cfg.ConfigMaps.ConfigMaps(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return s.r.cfg.Client.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	}
	return cm, err
}

func (s sources) Secret(ns, name string) (*corev1.Secret, error) {
	sec, err := s.r.cfg.Secrets.Secrets(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return s.r.cfg.Client.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
	}
	return sec, err
}

func (s sources) ClaimPath(ctx context.Context, ns, claim string) (string, error) {
	return s.r.ClaimPath(ctx, ns, claim)
}

// Token requests a token bound to the pod, as the kubelet does for projected volumes.
func (s sources) Token(ctx context.Context, pod *corev1.Pod, p *corev1.ServiceAccountTokenProjection) (string, time.Time, error) {
	exp := int64(3600)
	if p.ExpirationSeconds != nil {
		exp = *p.ExpirationSeconds
	}
	var aud []string
	if p.Audience != "" {
		aud = []string{p.Audience}
	}
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	tr, err := s.r.cfg.Client.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, authTokenRequest{aud, exp, pod}.build(), metav1.CreateOptions{})
	if err != nil {
		return "", time.Time{}, err
	}
	return tr.Status.Token, tr.Status.ExpirationTimestamp.Time, nil
}

// services lists the Services the pod's link variables come from.
func (r *Runtime) services(ns string) []*corev1.Service {
	var out []*corev1.Service
	if l, err := r.cfg.Services.Services(ns).List(everything); err == nil {
		out = append(out, l...)
	}
	if ns != "default" {
		if k, err := r.cfg.Services.Services("default").Get("kubernetes"); err == nil {
			out = append(out, k)
		}
	}
	return out
}

// podIPString is the pod's address or "".
func podIPString(ip net.IP) string {
	if ip == nil {
		return ""
	}
	return ip.String()
}

// sortedContainerNames lists names for messages.
func sortedNames(names []string) string {
	sort.Strings(names)
	return "[" + strings.Join(names, " ") + "]"
}

func itoa(n int) string { return strconv.Itoa(n) }
