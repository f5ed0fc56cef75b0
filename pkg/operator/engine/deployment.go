package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/operator/resource/resourcehash"
)

// DeploymentHook changes a rendered Deployment to match the CR. Each hook does one thing and is
// tested alone.
type DeploymentHook func(*appsv1.Deployment) error

// RunHooks runs the hooks in order.
func RunHooks(d *appsv1.Deployment, hooks ...DeploymentHook) error {
	for _, hook := range hooks {
		if err := hook(d); err != nil {
			return fmt.Errorf("prepare Deployment %s: %w", d.Name, err)
		}
	}
	return nil
}

// WithPodTemplateAnnotations adds annotations to the pod template; a changed value rolls the
// pods.
func WithPodTemplateAnnotations(annotations map[string]string) DeploymentHook {
	return func(d *appsv1.Deployment) error {
		if len(annotations) == 0 {
			return nil
		}
		if d.Spec.Template.Annotations == nil {
			d.Spec.Template.Annotations = map[string]string{}
		}
		for k, v := range annotations {
			d.Spec.Template.Annotations[k] = v
		}
		return nil
	}
}

// WithRestrictedSecurityContext makes every container of the pod meet the restricted Pod
// Security profile, whatever the manifest says, so the operand runs in a namespace that
// enforces it. Every container's root filesystem is read-only as well (issue 33): a program
// writes only where its operand mounts a volume, an emptyDir with a size limit at each path the
// program is known to write, so a compromised process cannot alter the image's files and a
// runaway one cannot fill the node's disk through the container's writable layer.
func WithRestrictedSecurityContext(d *appsv1.Deployment) error {
	pod := &d.Spec.Template.Spec
	if pod.SecurityContext == nil {
		pod.SecurityContext = &corev1.PodSecurityContext{}
	}
	pod.SecurityContext.RunAsNonRoot = ptr.To(true)
	pod.SecurityContext.SeccompProfile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	for _, containers := range [][]corev1.Container{pod.InitContainers, pod.Containers} {
		for i := range containers {
			c := &containers[i]
			if c.SecurityContext == nil {
				c.SecurityContext = &corev1.SecurityContext{}
			}
			c.SecurityContext.AllowPrivilegeEscalation = ptr.To(false)
			c.SecurityContext.Capabilities = &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
			c.SecurityContext.ReadOnlyRootFilesystem = ptr.To(true)
		}
	}
	return nil
}

// NonRootUser is the user a pod runs as when its manifest names none (WithNonRootUser):
// distroless's own "nonroot" user. The inference gateway's images (distroless) run as root by
// default, which the restricted profile's runAsNonRoot refuses.
const NonRootUser = 65532

// WithNonRootUser gives the pod NonRootUser unless it has a user. Run it after
// WithRestrictedSecurityContext, which makes the pod's security context.
func WithNonRootUser(d *appsv1.Deployment) error {
	sc := d.Spec.Template.Spec.SecurityContext
	if sc != nil && sc.RunAsUser == nil {
		sc.RunAsUser = ptr.To[int64](NonRootUser)
	}
	return nil
}

// PodSecurity is how a kind's pods meet the restricted Pod Security profile (Kind.PodSecurity);
// the engine runs its hooks on every Deployment after the kind's PrepareDeployment.
type PodSecurity int

const (
	// PodSecurityNone leaves the pods as rendered.
	PodSecurityNone PodSecurity = iota
	// PodSecurityRestricted: the restricted profile (WithRestrictedSecurityContext); the images
	// run as a non-root user of their own.
	PodSecurityRestricted
	// PodSecurityRestrictedNonRoot: the restricted profile, and a non-root user for images that
	// run as root by default: on Kubernetes NonRootUser, on OpenShift none, since the SCC assigns
	// one from the namespace's range and rejects 65532, which is outside it (issue 29). Every
	// Deployment of the inference gateway's kinds (Gateway, MCP, Agent, Orchestrator).
	PodSecurityRestrictedNonRoot
)

// Hooks are the hooks that give a pod s on platform.
func (s PodSecurity) Hooks(platform Platform) []DeploymentHook {
	switch {
	case s == PodSecurityRestricted, s == PodSecurityRestrictedNonRoot && platform == OpenShift:
		return []DeploymentHook{WithRestrictedSecurityContext}
	case s == PodSecurityRestrictedNonRoot:
		return []DeploymentHook{WithRestrictedSecurityContext, WithNonRootUser}
	}
	return nil
}

// ConfigHashAnnotations hashes the data (never the metadata) of mounted ConfigMaps and Secrets
// with library-go's resourcehash, one pod-template annotation each.
func ConfigHashAnnotations(configMaps []*corev1.ConfigMap, secrets []*corev1.Secret) (map[string]string, error) {
	ret := map[string]string{}
	for _, cm := range configMaps {
		hash, err := resourcehash.GetConfigMapHash(cm)
		if err != nil {
			return nil, err
		}
		ret[configHashKey("configmap-", cm.Name)] = hash
	}
	for _, s := range secrets {
		hash, err := resourcehash.GetSecretHash(s)
		if err != nil {
			return nil, err
		}
		ret[configHashKey("secret-", s.Name)] = hash
	}
	return ret, nil
}

// ReasonWaitingForMountedSecrets is the reason of a Deployment held back by
// WaitForMountedSecrets.
const ReasonWaitingForMountedSecrets = "WaitingForMountedSecrets"

// WaitForMountedSecrets holds a Deployment back while Secrets its pods need do not exist (nil
// when none is missing): a Deployment must never be applied without the hash of a Secret it
// mounts (ConfigHashAnnotations). Applied without it, its pods cannot start (a Secret volume or
// a secretKeyRef that does not exist), and the Secret's arrival a moment later adds the hash and
// rolls the Deployment a second time: a second ReplicaSet for every new Deployment whose
// Secret is created after the CR (kubectl apply of a folder, cert-manager issuing a TLS
// Secret), or just before it, while the watch has not delivered it yet (issue 34). The watch
// of the Secret brings the sync that creates the Deployment, once, with the hash. Not
// blocking: the later steps run (the Certificate that makes the Secret, say). A Deployment
// that exists already keeps running as it is meanwhile.
//
// missing are the watched Secrets that do not exist. Those the pod template names only as
// optional (PodSecrets) do not hold it back: the kubelet starts the pods without them, so
// waiting would only delay pods that can run (their hash joins when they exist, which rolls
// the pods onto them). A missing Secret the pod template does not name (the source in another
// namespace of a copy the pods mount) holds it back, as the caller says.
func WaitForMountedSecrets(d *appsv1.Deployment, missing []types.NamespacedName) error {
	named := PodSecrets(&d.Spec.Template.Spec)
	var names []string
	for _, ref := range missing {
		if needed, ok := named[ref.Name]; ok && !needed && ref.Namespace == d.Namespace {
			continue
		}
		names = append(names, ref.String())
	}
	if len(names) == 0 {
		return nil
	}
	return &StepError{Condition: ConditionProgressing, Reason: ReasonWaitingForMountedSecrets,
		Message: fmt.Sprintf("Deployment %s waits for the Secrets its pods mount, %s: it is applied once they exist",
			d.Name, strings.Join(names, ", "))}
}

// MountedSecrets are the Secrets refs names, read through watches, for the Deployment d whose
// pods read them at start: those that exist, for their hashes (ConfigHashAnnotations), or
// WaitForMountedSecrets's error while one the pods need does not. It fails while the watch has
// not synced (ErrNotSynced), where "absent" would be a guess. Every kind whose pods read
// referenced Secrets prepares its Deployment with it, so none is applied without a hash.
func MountedSecrets(watches *ReferenceWatches, d *appsv1.Deployment, refs []types.NamespacedName) ([]*corev1.Secret, error) {
	found, missing, err := watches.FindAll(refs)
	if err != nil {
		return nil, err
	}
	if err := WaitForMountedSecrets(d, missing); err != nil {
		return nil, err
	}
	secrets := make([]*corev1.Secret, len(found))
	for i, obj := range found {
		secrets[i] = obj.(*corev1.Secret)
	}
	return secrets, nil
}

// NeededNames are the names of the objects of one kind and namespace (Secrets, ConfigMaps) a pod
// reads when its containers start, each with whether the kubelet needs it to start them: some
// reference to it is not optional.
type NeededNames map[string]bool

// Add records one reference; an empty name (which the API server refuses) is left out.
func (n NeededNames) Add(name string, optional *bool) {
	if name != "" {
		n[name] = n[name] || !ptr.Deref(optional, false)
	}
}

// Optional are the names every reference to which is optional: the pods start without them.
func (n NeededNames) Optional() sets.Set[string] {
	out := sets.New[string]()
	for name, needed := range n {
		if !needed {
			out.Insert(name)
		}
	}
	return out
}

// In are the names as references in namespace, sorted.
func (n NeededNames) In(namespace string) []types.NamespacedName {
	var out []types.NamespacedName
	for _, name := range sets.List(sets.KeySet(n)) {
		out = append(out, types.NamespacedName{Namespace: namespace, Name: name})
	}
	return out
}

// PodSecrets are the Secrets a pod spec reads when its containers start: a Secret volume, a
// projected volume's Secret source, an env secretKeyRef or an envFrom secretRef, of a container
// or an init container, is needed unless it is optional; a Secret named both ways is needed.
// (imagePullSecrets are not read at start: the kubelet pulls without a missing one.)
func PodSecrets(spec *corev1.PodSpec) NeededNames {
	out := NeededNames{}
	for _, v := range spec.Volumes {
		if s := v.Secret; s != nil {
			out.Add(s.SecretName, s.Optional)
		}
		if p := v.Projected; p != nil {
			for _, source := range p.Sources {
				if s := source.Secret; s != nil {
					out.Add(s.Name, s.Optional)
				}
			}
		}
	}
	for _, containers := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range containers {
			for _, e := range c.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					out.Add(e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Optional)
				}
			}
			for _, from := range c.EnvFrom {
				if s := from.SecretRef; s != nil {
					out.Add(s.Name, s.Optional)
				}
			}
		}
	}
	return out
}

// configHashKey is the annotation key of one mounted object: ConfigHashAnnotationPrefix, the
// kind and the object's name. The part after the key's "/" may have 63 characters at most, and
// an object's name up to 253: a longer key keeps the start of the name and ends with a hash of
// the whole name, so it stays valid and distinct. Keys that fit are left as they are, so that
// existing pods are not rolled.
func configHashKey(kind, name string) string {
	_, prefixName, _ := strings.Cut(ConfigHashAnnotationPrefix, "/")
	part := prefixName + kind + name
	if len(part) <= validation.DNS1123LabelMaxLength {
		return ConfigHashAnnotationPrefix + kind + name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "-" + hex.EncodeToString(sum[:])[:10]
	keep := validation.DNS1123LabelMaxLength - len(prefixName) - len(kind) - len(suffix)
	return ConfigHashAnnotationPrefix + kind + strings.TrimRight(name[:keep], "-.") + suffix
}

// ContainerOf returns the named container of a Deployment's pod template, or nil.
func ContainerOf(d *appsv1.Deployment, name string) *corev1.Container {
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == name {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	return nil
}

// DesiredReplicas is a Deployment's replicas, defaulted as the API server defaults them.
func DesiredReplicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas != nil {
		return *d.Spec.Replicas
	}
	return 1
}

// RolloutState is what a Deployment's status says about its latest spec.
type RolloutState struct {
	// Exists is false when there is no Deployment.
	Exists bool
	// Available is at least one replica available.
	Available bool
	// Complete is the latest spec observed and every desired replica updated and available.
	Complete                                   bool
	Desired, Updated, AvailableReplicas, Ready int32
}

// Rollout reads a Deployment's state; nil is a Deployment that does not exist.
func Rollout(d *appsv1.Deployment) RolloutState {
	if d == nil {
		return RolloutState{}
	}
	want := DesiredReplicas(d)
	s := RolloutState{
		Exists:            true,
		Available:         d.Status.AvailableReplicas > 0,
		Desired:           want,
		Updated:           d.Status.UpdatedReplicas,
		AvailableReplicas: d.Status.AvailableReplicas,
		Ready:             d.Status.ReadyReplicas,
	}
	s.Complete = d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas >= want &&
		d.Status.AvailableReplicas >= want
	return s
}
