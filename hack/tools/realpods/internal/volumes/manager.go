package volumes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/podenv"
)

// Sources adds to podenv.Sources what volumes need from the cluster.
type Sources interface {
	podenv.Sources
	// Token requests a service account token bound to the pod (TokenRequest API).
	Token(ctx context.Context, pod *corev1.Pod, p *corev1.ServiceAccountTokenProjection) (string, time.Time, error)
	// ClaimPath is the host directory behind a PersistentVolumeClaim, created root-owned (0755) when
	// missing, like the root of a fresh block volume.
	ClaimPath(ctx context.Context, namespace, claim string) (string, error)
}

// Set is the volumes of one pod, laid out under Dir/<volume name> (PVCs elsewhere: ClaimPath).
type Set struct {
	Dir  string
	Src  Sources
	Info podenv.Pod

	mu     sync.Mutex
	tokens map[string]token
	paths  map[string]string
}

type token struct {
	value           string
	issued, expires time.Time
}

// Prepare lays out every volume of the pod and returns each one's host path by name.
func (s *Set) Prepare(ctx context.Context) (map[string]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		s.tokens = map[string]token{}
	}
	paths := map[string]string{}
	pod := s.Info.Pod
	sc := pod.Spec.SecurityContext
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		p, readOnly, owned, err := s.prepare(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("volume %q: %w", v.Name, err)
		}
		paths[v.Name] = p
		if owned && sc != nil && sc.FSGroup != nil {
			if err := SetOwnership(p, *sc.FSGroup, readOnly, sc.FSGroupChangePolicy); err != nil {
				return nil, fmt.Errorf("volume %q: fsGroup: %w", v.Name, err)
			}
		}
	}
	s.paths = paths
	return paths, nil
}

// Refresh rewrites the volumes whose content comes from the API (ConfigMaps, Secrets, downward
// API, projected: a token is renewed once 80% of its life has passed), as the kubelet's periodic
// sync does. A volume whose source fails to read keeps its last content.
func (s *Set) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	pod := s.Info.Pod
	sc := pod.Spec.SecurityContext
	var firstErr error
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.ConfigMap == nil && v.Secret == nil && v.DownwardAPI == nil && v.Projected == nil {
			continue
		}
		p, readOnly, _, err := s.prepare(ctx, v)
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("volume %q: %w", v.Name, err)
			}
			continue
		}
		if sc != nil && sc.FSGroup != nil {
			if err := SetOwnership(p, *sc.FSGroup, readOnly, nil); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}

// prepare lays out one volume: its host path, whether fsGroup treats it as read-only, and
// whether fsGroup applies at all.
func (s *Set) prepare(ctx context.Context, v *corev1.Volume) (string, bool, bool, error) {
	dir := filepath.Join(s.Dir, v.Name)
	ns := s.Info.Pod.Namespace
	var payload Payload
	var err error
	switch {
	case v.EmptyDir != nil:
		// The kubelet makes an emptyDir world-writable.
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return "", false, false, err
		}
		return dir, false, true, os.Chmod(dir, 0o777)
	case v.PersistentVolumeClaim != nil:
		p, err := s.Src.ClaimPath(ctx, ns, v.PersistentVolumeClaim.ClaimName)
		return p, v.PersistentVolumeClaim.ReadOnly, true, err
	case v.ConfigMap != nil:
		payload, err = ConfigMapPayload(s.Src, ns, v.ConfigMap)
	case v.Secret != nil:
		payload, err = SecretPayload(s.Src, ns, v.Secret)
	case v.DownwardAPI != nil:
		payload, err = DownwardAPIPayload(s.Info, v.DownwardAPI.Items, v.DownwardAPI.DefaultMode)
	case v.Projected != nil:
		payload, err = ProjectedPayload(s.Src, s.Info, v.Projected, func(p *corev1.ServiceAccountTokenProjection) (string, error) {
			return s.token(ctx, v.Name, p)
		})
	default:
		return "", false, false, fmt.Errorf("volume type not supported by realpods (emptyDir, persistentVolumeClaim, configMap, secret, downwardAPI, projected are)")
	}
	if err != nil {
		return "", false, false, err
	}
	if _, err := WriteAtomic(dir, payload); err != nil {
		return "", false, false, err
	}
	return dir, true, true, nil
}

func (s *Set) token(ctx context.Context, volume string, p *corev1.ServiceAccountTokenProjection) (string, error) {
	key := volume + "/" + p.Path
	now := time.Now()
	if t, ok := s.tokens[key]; ok && now.Before(t.issued.Add(t.expires.Sub(t.issued)*8/10)) {
		return t.value, nil
	}
	value, expires, err := s.Src.Token(ctx, s.Info.Pod, p)
	if err != nil {
		return "", err
	}
	s.tokens[key] = token{value: value, issued: now, expires: expires}
	return value, nil
}

// SubPath is the host source of a mount with subPath (or subPathExpr, expanded with the
// container's environment): created as a directory when missing, as the kubelet does.
func SubPath(volumePath, subPath string) (string, error) {
	if subPath == "" {
		return volumePath, nil
	}
	if filepath.IsAbs(subPath) || filepath.Clean(subPath) != subPath || subPath == ".." || len(subPath) > 2 && subPath[:3] == "../" {
		return "", fmt.Errorf("invalid subPath %q", subPath)
	}
	p := filepath.Join(volumePath, subPath)
	// Resolve symlinks inside the volume and refuse an escape (a link to /etc in a writable volume).
	if _, err := os.Lstat(p); os.IsNotExist(err) {
		if err := os.MkdirAll(p, 0o750); err != nil {
			return "", err
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(volumePath)
	if err != nil {
		return "", err
	}
	if real != root && !hasPrefixDir(real, root) {
		// Atomic-writer volumes resolve through ..data, which stays inside.
		return "", fmt.Errorf("subPath %q leaves its volume", subPath)
	}
	return real, nil
}

func hasPrefixDir(p, dir string) bool {
	return len(p) > len(dir) && p[:len(dir)] == dir && p[len(dir)] == '/'
}
