// Package volumes lays a pod's volumes out on the host as the kubelet does, for the sandbox to
// bind-mount at each container's mountPath: ConfigMaps, Secrets, downward API and projected
// volumes (service account tokens from the TokenRequest API) in the kubelet's atomic-writer
// layout, emptyDirs, and PersistentVolumeClaims backed by a host directory; then the ownership
// and modes fsGroup asks for.
package volumes

import (
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/podenv"
)

// File is one file of a payload.
type File struct {
	Data []byte
	Mode os.FileMode
}

// Payload maps a relative path (as in items[].path, may contain /) to its file.
type Payload map[string]File

// defaultMode is the API's default for ConfigMap, Secret, downward API and projected volumes
// (0644); the admission plugins usually set it explicitly.
const defaultMode = 0o644

func modeOf(itemMode, volumeMode *int32) os.FileMode {
	if itemMode != nil {
		return os.FileMode(*itemMode) & os.ModePerm
	}
	if volumeMode != nil {
		return os.FileMode(*volumeMode) & os.ModePerm
	}
	return defaultMode
}

// keyPayload builds the payload of key/value data and items, as for ConfigMap and Secret
// volumes: without items every key is a file named after it; with items only the listed keys,
// at their paths (a missing key is an error unless the source is optional).
func keyPayload(kind, name string, data map[string][]byte, items []corev1.KeyToPath, volumeMode *int32, optional bool) (Payload, error) {
	p := Payload{}
	if len(items) == 0 {
		for k, v := range data {
			p[k] = File{Data: v, Mode: modeOf(nil, volumeMode)}
		}
		return p, nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return nil, fmt.Errorf("configure %s %q volume: key %q not found", kind, name, it.Key)
		}
		if err := checkPath(it.Path); err != nil {
			return nil, err
		}
		p[it.Path] = File{Data: v, Mode: modeOf(it.Mode, volumeMode)}
	}
	return p, nil
}

func checkPath(p string) error {
	if p == "" || path.IsAbs(p) || strings.HasPrefix(p, "..") || strings.Contains(p, "/../") || path.Clean(p) != p {
		return fmt.Errorf("invalid volume item path %q", p)
	}
	return nil
}

func configMapData(cm *corev1.ConfigMap) map[string][]byte {
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	for k, v := range cm.BinaryData {
		data[k] = v
	}
	return data
}

// ConfigMapPayload is the payload of a ConfigMap volume (or projection); a missing optional
// ConfigMap is an empty payload.
func ConfigMapPayload(src podenv.Sources, ns string, s *corev1.ConfigMapVolumeSource) (Payload, error) {
	return configMapProjection(src, ns, s.Name, s.Items, s.DefaultMode, s.Optional)
}

func configMapProjection(src podenv.Sources, ns, name string, items []corev1.KeyToPath, mode *int32, opt *bool) (Payload, error) {
	cm, err := src.ConfigMap(ns, name)
	if err != nil {
		if apierrors.IsNotFound(err) && opt != nil && *opt {
			return Payload{}, nil
		}
		return nil, fmt.Errorf("configmap %q: %w", name, err)
	}
	return keyPayload("configmap", name, configMapData(cm), items, mode, opt != nil && *opt)
}

// SecretPayload is the payload of a Secret volume (or projection).
func SecretPayload(src podenv.Sources, ns string, s *corev1.SecretVolumeSource) (Payload, error) {
	return secretProjection(src, ns, s.SecretName, s.Items, s.DefaultMode, s.Optional)
}

func secretProjection(src podenv.Sources, ns, name string, items []corev1.KeyToPath, mode *int32, opt *bool) (Payload, error) {
	sec, err := src.Secret(ns, name)
	if err != nil {
		if apierrors.IsNotFound(err) && opt != nil && *opt {
			return Payload{}, nil
		}
		return nil, fmt.Errorf("secret %q: %w", name, err)
	}
	return keyPayload("secret", name, sec.Data, items, mode, opt != nil && *opt)
}

// DownwardAPIPayload is the payload of downward API items.
func DownwardAPIPayload(p podenv.Pod, items []corev1.DownwardAPIVolumeFile, volumeMode *int32) (Payload, error) {
	out := Payload{}
	for _, it := range items {
		if err := checkPath(it.Path); err != nil {
			return nil, err
		}
		var v string
		var err error
		switch {
		case it.FieldRef != nil:
			v, err = podenv.FieldValue(p, it.FieldRef.FieldPath)
		case it.ResourceFieldRef != nil:
			c := containerNamed(p.Pod, it.ResourceFieldRef.ContainerName)
			if c == nil {
				return nil, fmt.Errorf("downward API item %q: no container %q", it.Path, it.ResourceFieldRef.ContainerName)
			}
			v, err = podenv.ResourceValue(it.ResourceFieldRef, c, p.NodeAllocatable)
		default:
			err = fmt.Errorf("names no field")
		}
		if err != nil {
			return nil, fmt.Errorf("downward API item %q: %w", it.Path, err)
		}
		out[it.Path] = File{Data: []byte(v), Mode: modeOf(it.Mode, volumeMode)}
	}
	return out, nil
}

func containerNamed(pod *corev1.Pod, name string) *corev1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name || (name == "" && i == 0) {
			return &pod.Spec.Containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name {
			return &pod.Spec.InitContainers[i]
		}
	}
	return nil
}

// TokenFunc returns a service account token (TokenRequest API) for the projection.
type TokenFunc func(src *corev1.ServiceAccountTokenProjection) (string, error)

// ProjectedPayload is the payload of a projected volume: the union of its sources.
func ProjectedPayload(src podenv.Sources, p podenv.Pod, s *corev1.ProjectedVolumeSource, token TokenFunc) (Payload, error) {
	out := Payload{}
	add := func(part Payload) {
		for k, v := range part {
			out[k] = v
		}
	}
	for _, ps := range s.Sources {
		switch {
		case ps.ConfigMap != nil:
			part, err := configMapProjection(src, p.Pod.Namespace, ps.ConfigMap.Name, ps.ConfigMap.Items, s.DefaultMode, ps.ConfigMap.Optional)
			if err != nil {
				return nil, err
			}
			add(part)
		case ps.Secret != nil:
			part, err := secretProjection(src, p.Pod.Namespace, ps.Secret.Name, ps.Secret.Items, s.DefaultMode, ps.Secret.Optional)
			if err != nil {
				return nil, err
			}
			add(part)
		case ps.DownwardAPI != nil:
			part, err := DownwardAPIPayload(p, ps.DownwardAPI.Items, s.DefaultMode)
			if err != nil {
				return nil, err
			}
			add(part)
		case ps.ServiceAccountToken != nil:
			if err := checkPath(ps.ServiceAccountToken.Path); err != nil {
				return nil, err
			}
			tok, err := token(ps.ServiceAccountToken)
			if err != nil {
				return nil, fmt.Errorf("service account token: %w", err)
			}
			out[ps.ServiceAccountToken.Path] = File{Data: []byte(tok), Mode: modeOf(nil, s.DefaultMode)}
		default:
			return nil, fmt.Errorf("projected volume source not supported by realpods (only configMap, secret, downwardAPI, serviceAccountToken)")
		}
	}
	return out, nil
}

// sortedPaths lists a payload's paths in order.
func (p Payload) sortedPaths() []string {
	out := make([]string, 0, len(p))
	for k := range p {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
