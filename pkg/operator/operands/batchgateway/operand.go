package batchgateway

import (
	"errors"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// ControllerName names the controller (in logs and events).
const ControllerName = "LLMBatchGatewayController"

// OperandName labels the operand's metrics.
const OperandName = "batch-gateway"

// groupKind is the kind of the CR; objects it controls map back to its queue key.
var groupKind = schema.GroupKind{Group: batchv1alpha1.GroupName, Kind: "LLMBatchGateway"}

// Registrations is the LLMBatchGateway kind. Every LLMBatchGateway syncs in its own namespace,
// one queue key per CR; its objects get a controller owner reference to it, so deleting the CR
// deletes them through garbage collection: the operator needs no finalizer.
func Registrations() []registry.Registration {
	return []registry.Registration{registry.Namespaced(registry.Registration{
		APIPackage:     "pkg/apis/batch/v1alpha1",
		OperandPackage: "pkg/operator/operands/batchgateway",
		Images: []registry.Image{
			{Env: APIServerImageEnv, Component: "the LLM batch gateway's API server"},
			{Env: ProcessorImageEnv, Component: "the LLM batch gateway's processor"},
			{Env: GCImageEnv, Component: "the LLM batch gateway's garbage collector"},
			{Env: AsyncProcessorImageEnv, Component: "the LLM batch gateway's async processor"},
		},
		Admission: registry.Admission{Base: testcases.BaseSync, Golden: "batch-gateway",
			Rejected: testcases.Rejected, Accepted: testcases.Accepted},
		Example: "llmbatchgateway_sync.yaml",
	}, Kind)}
}

// syncRun is the sync of one LLMBatchGateway.
type syncRun = engine.Run[*batchv1alpha1.LLMBatchGateway, *state]

// state is what the steps of one sync produce for the render and the status.
type state struct {
	images Images
	names  Names
	// policy is what the administrator allows the CR to name.
	policy engine.Policy
	// credentialsSecret is the Secret in the CR's namespace that the pods mount.
	credentialsSecret string
	// credentials is the referenced Secret (the source of a cross-namespace copy), once read;
	// only its data's hash leaves the operator.
	credentials *corev1.Secret
	// credentialsMissing says that the referenced Secret does not exist: the Deployments,
	// whose pods mount it, wait for it.
	credentialsMissing bool
	// scaledToZero are the Deployments withdrawCredentials scaled to 0 in this sync, as written,
	// for the status (the caches may not hold the writes yet). Not run.Applied: recording their
	// generations would keep them at 0 once a grant allows the reference again.
	scaledToZero map[string]*appsv1.Deployment
}

// Kind is the LLMBatchGateway kind on the engine. deps without clients (a render without a
// cluster) builds a kind that only renders.
func Kind(deps *registry.Deps) *engine.Kind[*batchv1alpha1.LLMBatchGateway, *state] {
	getenv := deps.Image
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	images := ImagesFromEnv(getenv)
	k := &engine.Kind[*batchv1alpha1.LLMBatchGateway, *state]{
		Operand:        OperandName,
		ControllerName: ControllerName,
		GVK:            batchv1alpha1.GroupVersion.WithKind(groupKind.Kind),
		Resource:       "llmbatchgateways",
		PartOf:         PartOfValue,
		Workers:        4,
		Conditions:     func(cr *batchv1alpha1.LLMBatchGateway) []metav1.Condition { return cr.Status.Conditions },
		Generations:    func(cr *batchv1alpha1.LLMBatchGateway) []operatorv1.GenerationStatus { return cr.Status.Generations },
		Manifests:      bindata.FS,
		// The one asset list, bindata.BatchGatewayAssets: each object after what it mounts or
		// runs as, the optional kinds last.
		Assets:    engine.AssetTable(bindata.BatchGatewayAssets, assetDetails),
		StepNames: stepOfKind,
		// The copy of a credentials Secret of another namespace (applyCredentials).
		Writes:       []schema.GroupVersionResource{{Version: "v1", Resource: "secrets"}},
		OptionalAPIs: OptionalAPIs(),
		References:   []schema.GroupResource{engine.Secrets},
		Validate:     func(cr *batchv1alpha1.LLMBatchGateway) field.ErrorList { return cr.ValidateSpec() },
		Precondition: func(run *syncRun) *engine.StepError {
			if missing := run.State.images.missingEnv(&run.CR.Spec); len(missing) > 0 {
				return readyProblem(engine.ReasonImageMissing, true,
					"the operator has no image for %v: set the environment variables %v on the operator's Deployment (the CSV's relatedImages)", missing.components(), missing.envVars())
			}
			return nil
		},
		NewState: func(cr *batchv1alpha1.LLMBatchGateway) *state {
			return &state{images: images, names: NamesFor(cr.Name), credentialsSecret: credentialsSecretFor(cr), policy: deps.Policy,
				scaledToZero: map[string]*appsv1.Deployment{}}
		},
		// The credentials Secret comes first: every object depends on it.
		Steps: []engine.Step[*syncRun]{
			{Name: "credentials Secret", Apply: applyCredentials},
			{Name: "the administrator's allowlists", Apply: checkPolicy},
		},
		Render: renderRun,
		RenderFailed: func(err error) *engine.StepError {
			var pe *platformError
			if errors.As(err, &pe) {
				// Discovery failed: an API error, retried; nothing is rendered meanwhile.
				se := engine.AsStepError("render", engine.ReasonApplyFailed, pe.err)
				se.Blocking = true
				return se
			}
			return readyProblem(reasonRenderFailed, true, "the spec cannot be rendered: %v", err)
		},
		PrepareDeployment: prepareDeployment,
		PodSecurity:       engine.PodSecurityRestricted,
		Status:            status,
		Events:            transitionEvents,
		// A ReferenceGrant in a namespace may allow or forbid the credentials Secret of the
		// CRs that reference a Secret there.
		Related: func(obj runtime.Object, crs func() []*batchv1alpha1.LLMBatchGateway) ([]string, bool) {
			if engine.KindOf(obj).Kind != "ReferenceGrant" {
				return nil, false
			}
			m, ok := obj.(metav1.Object)
			if !ok {
				return nil, true
			}
			return keysReferencingNamespace(crs(), m.GetNamespace()), true
		},
	}
	if deps.CRInformers != nil {
		k.Client = func(namespace string) engine.StatusClient[*batchv1alpha1.LLMBatchGateway] {
			return deps.CR.BatchV1alpha1().LLMBatchGateways(namespace)
		}
		k.Informer = deps.CRInformers.Batch().V1alpha1().LLMBatchGateways().Informer()
	}
	return k
}

// renderRun renders every asset for the CR from the sync's state: the credentials Secret the
// pods mount, the CA of the apiserver's TLS Secret (watched; "" in a render without a cluster)
// and, with filesystem storage, whether the cluster is OpenShift.
func renderRun(run *syncRun) ([]engine.Rendered, error) {
	var openShift bool
	if fs := run.CR.Spec.FileStorage; fs != nil && fs.FS != nil {
		platform, err := run.Platform()
		if err != nil {
			return nil, &platformError{err}
		}
		openShift = platform == engine.OpenShift
	}
	objs, err := renderAll(renderInput{cr: run.CR, images: run.State.images, credentialsSecret: run.State.credentialsSecret,
		backendCA: backendCA(run), openShift: openShift, policy: run.State.policy})
	if err != nil {
		return nil, err
	}
	out := make([]engine.Rendered, len(objs))
	for i, ro := range objs {
		out[i] = engine.Rendered{Asset: ro.asset, Object: ro.obj, Wanted: ro.wanted}
	}
	return out, nil
}

// platformError is a failed platform probe: the render could not start, the spec is fine.
type platformError struct{ err error }

func (e *platformError) Error() string { return e.err.Error() }

// keysReferencingNamespace lists the CRs whose credentials Secret is in namespace (another
// namespace than theirs).
func keysReferencingNamespace(crs []*batchv1alpha1.LLMBatchGateway, namespace string) []string {
	var keys []string
	for _, cr := range crs {
		if cr.Spec.SecretRef.Namespace == namespace && namespace != cr.Namespace {
			keys = append(keys, cr.Namespace+"/"+cr.Name)
		}
	}
	return keys
}

// prepareDeployment adds to a component's Deployment the hash of everything it mounts, so a
// change of a ConfigMap's or Secret's data rolls its pods.
// A Secret it mounts that does not exist holds the Deployment back (engine.WaitForMountedSecrets);
// in a render without a cluster nothing is watched, and the hashes of the Secrets are left out.
func prepareDeployment(run *syncRun, d *appsv1.Deployment) error {
	component := d.Labels[componentLabel]
	configMaps := renderedConfigMaps(run.Rendered, component)
	var secrets []*corev1.Secret
	var missing []types.NamespacedName
	if run.State.credentials != nil {
		secrets = append(secrets, run.State.credentials)
	} else if run.State.credentialsMissing {
		missing = append(missing, credentialsSource(run.CR))
	}
	for _, ref := range tlsSecretsFor(run.CR, run.State.names, component) {
		s, err := watchedSecret(run, ref)
		switch {
		case engine.IsNotSynced(err):
			return err
		case apierrors.IsNotFound(err):
			missing = append(missing, ref)
		case err == nil:
			secrets = append(secrets, s)
		}
	}
	if err := engine.WaitForMountedSecrets(d, missing); err != nil {
		return err
	}
	hashes, err := engine.ConfigHashAnnotations(configMaps, secrets)
	if err != nil {
		return err
	}
	return engine.WithPodTemplateAnnotations(hashes)(d)
}

// renderedConfigMaps are the ConfigMaps a component's pods mount, as rendered.
func renderedConfigMaps(rendered map[string]engine.Rendered, component string) []*corev1.ConfigMap {
	var configMaps []*corev1.ConfigMap
	for _, asset := range configMapsOf[component] {
		if ro, ok := rendered[asset]; ok && ro.Wanted {
			if cm, ok := ro.Object.(*corev1.ConfigMap); ok {
				configMaps = append(configMaps, cm)
			}
		}
	}
	return configMaps
}

// readyProblem reports something in the CR or its references that stops the gateway from
// working: Ready is False with reason. Blocking stops the later steps (the objects already
// running are left alone).
func readyProblem(reason string, blocking bool, format string, args ...any) *engine.StepError {
	return &engine.StepError{Condition: conditionReady, Reason: reason, Message: fmt.Sprintf(format, args...), Blocking: blocking}
}
