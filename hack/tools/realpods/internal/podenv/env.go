// Package podenv computes a container's environment as the kubelet does: the image's defaults,
// envFrom, env (value with $(VAR) expansion, or valueFrom a Secret, ConfigMap, a field of the pod,
// or a resource of the container), then the Service link variables; and expands $(VAR) in
// command and args with the result.
package podenv

import (
	"errors"
	"fmt"
	"math"
	"net"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Sources is where references are read from (the agent's informer caches; a fake in tests). A
// missing object is an apierrors NotFound.
type Sources interface {
	ConfigMap(namespace, name string) (*corev1.ConfigMap, error)
	Secret(namespace, name string) (*corev1.Secret, error)
}

// Pod is what env may refer to besides objects: the pod, its addresses, and the node's
// allocatable resources (a resource limit's default).
type Pod struct {
	Pod             *corev1.Pod
	PodIP           string
	HostIP          string
	NodeAllocatable corev1.ResourceList
}

// ConfigError is a reference that cannot be resolved: the container waits with
// CreateContainerConfigError, as with the kubelet.
type ConfigError struct{ Message string }

func (e *ConfigError) Error() string { return e.Message }

// Var is one resolved variable.
type Var struct{ Name, Value string }

// Resolve computes the environment of container c. imageEnv are the image's defaults (overridden
// by the container's own variables); serviceEnv are the Service link variables (ServiceEnv).
func Resolve(src Sources, p Pod, c *corev1.Container, imageEnv []Var, serviceEnv []Var) ([]Var, error) {
	env := newOrdered()
	for _, from := range c.EnvFrom {
		if err := addEnvFrom(src, p.Pod.Namespace, from, env); err != nil {
			return nil, err
		}
	}
	svc := map[string]string{}
	for _, v := range serviceEnv {
		svc[v.Name] = v.Value
	}
	lookup := lookupIn(env.values, svc)
	for i := range c.Env {
		e := &c.Env[i]
		if e.ValueFrom == nil {
			env.set(e.Name, Expand(e.Value, lookup))
			continue
		}
		v, ok, err := valueFrom(src, p, c, e)
		if err != nil {
			return nil, err
		}
		if ok {
			env.set(e.Name, v)
		}
	}
	for _, v := range serviceEnv {
		if _, ok := env.values[v.Name]; !ok {
			env.set(v.Name, v.Value)
		}
	}
	// The image's defaults come first and give way to the container's variables.
	out := make([]Var, 0, len(imageEnv)+len(env.names))
	for _, v := range imageEnv {
		if _, ok := env.values[v.Name]; !ok {
			out = append(out, v)
		}
	}
	for _, n := range env.names {
		out = append(out, Var{Name: n, Value: env.values[n]})
	}
	return out, nil
}

// Argv expands $(VAR) in command and args with the container's resolved environment.
func Argv(argv []string, env []Var) []string {
	m := map[string]string{}
	for _, v := range env {
		m[v.Name] = v.Value
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = Expand(a, lookupIn(m))
	}
	return out
}

type ordered struct {
	names  []string
	values map[string]string
}

func newOrdered() *ordered { return &ordered{values: map[string]string{}} }

func (o *ordered) set(name, value string) {
	if _, ok := o.values[name]; !ok {
		o.names = append(o.names, name)
	}
	o.values[name] = value
}

func addEnvFrom(src Sources, ns string, from corev1.EnvFromSource, env *ordered) error {
	var data map[string]string
	switch {
	case from.ConfigMapRef != nil:
		cm, err := src.ConfigMap(ns, from.ConfigMapRef.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(from.ConfigMapRef.Optional) {
				return nil
			}
			return refError("configmap", from.ConfigMapRef.Name, err)
		}
		data = cm.Data
	case from.SecretRef != nil:
		s, err := src.Secret(ns, from.SecretRef.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(from.SecretRef.Optional) {
				return nil
			}
			return refError("secret", from.SecretRef.Name, err)
		}
		data = map[string]string{}
		for k, v := range s.Data {
			data[k] = string(v)
		}
	default:
		return nil
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := from.Prefix + k
		// The kubelet skips keys that are no valid variable names (and says so in an event).
		if len(validation.IsEnvVarName(name)) > 0 {
			continue
		}
		env.set(name, data[k])
	}
	return nil
}

func refError(kind, name string, err error) error {
	if apierrors.IsNotFound(err) {
		return &ConfigError{Message: fmt.Sprintf("%s %q not found", kind, name)}
	}
	return fmt.Errorf("read %s %q: %w", kind, name, err)
}

func optional(b *bool) bool { return b != nil && *b }

// valueFrom resolves one valueFrom; ok is false when an optional reference is missing (the
// variable is left out).
func valueFrom(src Sources, p Pod, c *corev1.Container, e *corev1.EnvVar) (string, bool, error) {
	ns := p.Pod.Namespace
	switch vf := e.ValueFrom; {
	case vf.ConfigMapKeyRef != nil:
		ref := vf.ConfigMapKeyRef
		cm, err := src.ConfigMap(ns, ref.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(ref.Optional) {
				return "", false, nil
			}
			return "", false, refError("configmap", ref.Name, err)
		}
		v, ok := cm.Data[ref.Key]
		if !ok {
			if b, bok := cm.BinaryData[ref.Key]; bok {
				return string(b), true, nil
			}
			if optional(ref.Optional) {
				return "", false, nil
			}
			return "", false, &ConfigError{Message: fmt.Sprintf("couldn't find key %s in ConfigMap %s/%s", ref.Key, ns, ref.Name)}
		}
		return v, true, nil
	case vf.SecretKeyRef != nil:
		ref := vf.SecretKeyRef
		s, err := src.Secret(ns, ref.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(ref.Optional) {
				return "", false, nil
			}
			return "", false, refError("secret", ref.Name, err)
		}
		v, ok := s.Data[ref.Key]
		if !ok {
			if optional(ref.Optional) {
				return "", false, nil
			}
			return "", false, &ConfigError{Message: fmt.Sprintf("couldn't find key %s in Secret %s/%s", ref.Key, ns, ref.Name)}
		}
		return string(v), true, nil
	case vf.FieldRef != nil:
		v, err := FieldValue(p, vf.FieldRef.FieldPath)
		if err != nil {
			return "", false, &ConfigError{Message: fmt.Sprintf("env %s: %v", e.Name, err)}
		}
		return v, true, nil
	case vf.ResourceFieldRef != nil:
		v, err := ResourceValue(vf.ResourceFieldRef, c, p.NodeAllocatable)
		if err != nil {
			return "", false, &ConfigError{Message: fmt.Sprintf("env %s: %v", e.Name, err)}
		}
		return v, true, nil
	}
	return "", false, &ConfigError{Message: fmt.Sprintf("env %s: valueFrom names no source this agent knows", e.Name)}
}

// FieldValue is the downward API's value of a pod field (env fieldRef and downwardAPI volumes).
func FieldValue(p Pod, path string) (string, error) {
	pod := p.Pod
	if k, ok := subscript(path, "metadata.labels"); ok {
		return pod.Labels[k], nil
	}
	if k, ok := subscript(path, "metadata.annotations"); ok {
		return pod.Annotations[k], nil
	}
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "metadata.labels":
		return formatMap(pod.Labels), nil
	case "metadata.annotations":
		return formatMap(pod.Annotations), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.hostIPs":
		return p.HostIP, nil
	case "status.podIP", "status.podIPs":
		return p.PodIP, nil
	}
	return "", fmt.Errorf("unsupported fieldPath %q", path)
}

// subscript parses `prefix['key']`.
func subscript(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"['")
	if !ok {
		return "", false
	}
	k, ok := strings.CutSuffix(rest, "']")
	return k, ok
}

// formatMap is the downward API's k="v" lines, sorted, with Go-quoted values.
func formatMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k + "=" + strconv.Quote(m[k]))
	}
	return b.String()
}

// ResourceValue is the downward API's value of a container resource: the request or limit
// divided by the divisor, rounded up; an unset limit is the node's allocatable amount, an unset
// request of CPU or memory is the limit (as the kubelet defaults them).
func ResourceValue(ref *corev1.ResourceFieldSelector, c *corev1.Container, allocatable corev1.ResourceList) (string, error) {
	kind, name, ok := strings.Cut(ref.Resource, ".")
	if !ok || (kind != "limits" && kind != "requests") {
		return "", fmt.Errorf("unsupported resource %q", ref.Resource)
	}
	res := corev1.ResourceName(name)
	var q resource.Quantity
	limit, hasLimit := c.Resources.Limits[res]
	if !hasLimit {
		limit, hasLimit = allocatable[res]
	}
	switch kind {
	case "limits":
		if !hasLimit {
			return "", fmt.Errorf("no limit and no node allocatable for %s", name)
		}
		q = limit
	case "requests":
		if r, ok := c.Resources.Requests[res]; ok {
			q = r
		} else if l, ok := c.Resources.Limits[res]; ok {
			q = l
		} else {
			q = resource.Quantity{}
		}
	}
	divisor := ref.Divisor
	if divisor.IsZero() {
		divisor = resource.MustParse("1")
	}
	if res == corev1.ResourceCPU {
		v := int64(math.Ceil(float64(q.MilliValue()) / float64(divisor.MilliValue())))
		return strconv.FormatInt(v, 10), nil
	}
	v := int64(math.Ceil(float64(q.Value()) / float64(divisor.Value())))
	return strconv.FormatInt(v, 10), nil
}

// ServiceEnv is the kubelet's Service link variables: for the `kubernetes` Service of the
// default namespace always, and for every Service of the pod's namespace when
// enableServiceLinks (default true). Services without a ClusterIP are left out.
func ServiceEnv(podNamespace string, enableServiceLinks *bool, services []*corev1.Service) []Var {
	links := enableServiceLinks == nil || *enableServiceLinks
	byName := map[string]*corev1.Service{}
	for _, s := range services {
		switch {
		case s.Namespace == "default" && s.Name == "kubernetes":
			if _, ok := byName[s.Name]; !ok || podNamespace != "default" {
				byName[s.Name] = s
			}
		case s.Namespace == podNamespace && links:
			if _, ok := byName[s.Name]; !ok {
				byName[s.Name] = s
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Var
	for _, n := range names {
		s := byName[n]
		ip := s.Spec.ClusterIP
		if ip == "" || ip == corev1.ClusterIPNone || len(s.Spec.Ports) == 0 {
			continue
		}
		prefix := envName(s.Name)
		out = append(out,
			Var{prefix + "_SERVICE_HOST", ip},
			Var{prefix + "_SERVICE_PORT", strconv.Itoa(int(s.Spec.Ports[0].Port))})
		for _, sp := range s.Spec.Ports {
			if sp.Name != "" {
				out = append(out, Var{prefix + "_SERVICE_PORT_" + envName(sp.Name), strconv.Itoa(int(sp.Port))})
			}
		}
		for i, sp := range s.Spec.Ports {
			proto := string(sp.Protocol)
			if proto == "" {
				proto = string(corev1.ProtocolTCP)
			}
			hostPort := net.JoinHostPort(ip, strconv.Itoa(int(sp.Port)))
			url := strings.ToLower(proto) + "://" + hostPort
			if i == 0 {
				out = append(out, Var{prefix + "_PORT", url})
			}
			pp := fmt.Sprintf("%s_PORT_%d_%s", prefix, sp.Port, strings.ToUpper(proto))
			out = append(out,
				Var{pp, url},
				Var{pp + "_PROTO", strings.ToLower(proto)},
				Var{pp + "_PORT", strconv.Itoa(int(sp.Port))},
				Var{pp + "_ADDR", ip})
		}
	}
	return out
}

func envName(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "-", "_")) }

// IsConfigError tells a reference error (the container waits) from a failure to read.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}
