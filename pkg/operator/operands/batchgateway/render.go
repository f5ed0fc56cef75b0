package batchgateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	batchv1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/batch/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
)

// renderInput is everything rendering depends on. Rendering is a pure function of it.
type renderInput struct {
	cr     *batchv1alpha1.LLMBatchGateway
	images Images
	// credentialsSecret is the Secret the pods mount: spec.secretRef.name, or the copy
	// "<cr>-credentials" of a Secret in another namespace (credentialsSecretFor).
	credentialsSecret string
	// backendCA is the CA of the apiserver's certificate (syncRun.backendCA), for the
	// BackendTLSPolicy; "" while its Secret does not exist.
	backendCA string
	// openShift: the cluster is OpenShift, whose SCC sets the pods' fsGroup (withFSGroup).
	openShift bool
	// policy is what the administrator allows the CR to name: a Certificate from a
	// ClusterIssuer it refuses is not wanted (notAllowed).
	policy engine.Policy
}

// renderedObject is one asset of bindata.BatchGatewayAssets rendered for a CR.
type renderedObject struct {
	asset string
	// wanted is false when the CR does not ask for the object (a feature is off): the
	// controller deletes it if the operator made it. Its name and namespace are filled in
	// either way.
	wanted bool
	// obj is typed for built-in kinds (*corev1.ServiceAccount, *corev1.ConfigMap,
	// *corev1.Service, *appsv1.Deployment) and *unstructured.Unstructured for the kinds of
	// optional CRDs (cert-manager, Gateway API, Prometheus operator).
	obj runtime.Object
}

// credentialsSecretFor is the Secret the operand's pods mount: the referenced Secret when it
// is in the CR's namespace, otherwise the copy the controller makes of it.
func credentialsSecretFor(cr *batchv1alpha1.LLMBatchGateway) string {
	ref := cr.Spec.SecretRef
	if ref.Namespace == "" || ref.Namespace == cr.Namespace {
		return ref.Name
	}
	return NamesFor(cr.Name).Credentials
}

// renderAll renders every asset of bindata.BatchGatewayAssets for the CR, in that order. An
// error means the CR asks for something the operand cannot run with (the CRD's rules normally
// stop it earlier); the message names the field.
func renderAll(in renderInput) ([]renderedObject, error) {
	shared, err := sharedConfigFor(&in.cr.Spec)
	if err != nil {
		return nil, err
	}
	r := &renderer{renderInput: in, names: NamesFor(in.cr.Name), shared: shared}
	out := make([]renderedObject, 0, len(bindata.BatchGatewayAssets))
	for _, asset := range bindata.BatchGatewayAssets {
		obj, wanted, err := r.render(asset)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", asset, err)
		}
		out = append(out, renderedObject{asset: asset, wanted: wanted, obj: obj})
	}
	return out, withNetworkPolicies(out, &in.cr.Spec)
}

// renderer renders the assets of one CR.
type renderer struct {
	renderInput
	names Names
	// shared are the config blocks of the three batch components' config files.
	shared sharedConfig
}

func (r *renderer) spec() *batchv1alpha1.LLMBatchGatewaySpec { return &r.cr.Spec }

// placeholders are the values of the placeholders of bindata/batchgateway.go.
func (r *renderer) placeholders() map[string]string {
	return map[string]string{
		bindata.NamespacePlaceholder:                       r.cr.Namespace,
		bindata.BatchGatewayInstancePlaceholder:            r.cr.Name,
		bindata.BatchGatewayAPIServerNamePlaceholder:       r.names.APIServer,
		bindata.BatchGatewayProcessorNamePlaceholder:       r.names.Processor,
		bindata.BatchGatewayGCNamePlaceholder:              r.names.GC,
		bindata.BatchGatewayAsyncProcessorNamePlaceholder:  r.names.AsyncProcessor,
		bindata.BatchGatewayAPIServerImagePlaceholder:      r.images.APIServer,
		bindata.BatchGatewayProcessorImagePlaceholder:      r.images.Processor,
		bindata.BatchGatewayGCImagePlaceholder:             r.images.GC,
		bindata.BatchGatewayAsyncProcessorImagePlaceholder: r.images.AsyncProcessor,
		bindata.BatchGatewayCredentialsSecretPlaceholder:   r.credentialsSecret,
	}
}

// render renders one asset: the manifest with its placeholders substituted and, when the CR
// wants the object, the CR's fields applied.
func (r *renderer) render(asset string) (runtime.Object, bool, error) {
	ar, ok := assetRenderers[asset]
	if !ok {
		return nil, false, fmt.Errorf("no renderer for this asset")
	}
	content, err := r.manifest(asset)
	if err != nil {
		return nil, false, err
	}
	wanted := ar.wanted(r.spec())
	if needs, ok := alsoNeeds[asset]; ok && wanted {
		wanted = needs(r)
	}
	obj, err := ar.build(r, content, wanted)
	return obj, wanted, err
}

// manifest parses an embedded manifest with its placeholders substituted (inside string
// values only: engine.Renderer).
func (r *renderer) manifest(asset string) (map[string]interface{}, error) {
	obj, err := engine.Renderer{Manifests: bindata.FS, Placeholders: r.placeholders()}.Manifest(asset)
	if err != nil {
		return nil, err
	}
	return obj.Object, nil
}

// --- the asset table ---

// assetRenderer says when the CR wants an asset and how the CR changes it.
type assetRenderer struct {
	wanted func(*batchv1alpha1.LLMBatchGatewaySpec) bool
	// build turns the substituted manifest into the object; the CR's fields are applied only
	// when the object is wanted.
	build func(r *renderer, content map[string]interface{}, wanted bool) (runtime.Object, error)
}

var assetRenderers = map[string]assetRenderer{
	bindata.BatchGatewayAPIServerServiceAccount:      {always, typed[corev1.ServiceAccount]()},
	bindata.BatchGatewayProcessorServiceAccount:      {always, typed[corev1.ServiceAccount]()},
	bindata.BatchGatewayGCServiceAccount:             {always, typed[corev1.ServiceAccount]()},
	bindata.BatchGatewayAsyncProcessorServiceAccount: {asyncEnabled, typed(asyncImagePullSecrets)},

	bindata.BatchGatewayAPIServerConfigMap:      {always, typed(apiServerConfigMap)},
	bindata.BatchGatewayProcessorConfigMap:      {always, typed(processorConfigMap)},
	bindata.BatchGatewayGCConfigMap:             {always, typed(gcConfigMap)},
	bindata.BatchGatewayAsyncProcessorConfigMap: {asyncConfigMapWanted, typed(asyncProcessorConfigMap)},
	bindata.BatchGatewayDashboards:              {grafanaEnabled, typed[corev1.ConfigMap]()},
	bindata.BatchGatewayAsyncProcessorDashboard: {both(asyncEnabled, grafanaEnabled), typed[corev1.ConfigMap]()},
	bindata.BatchGatewayAPIServerBackendCA:      {backendTLSWanted, typed(backendCAConfigMap)},

	bindata.BatchGatewayAPIServerService: {always, typed(apiServerService)},

	bindata.BatchGatewayAPIServerDeployment:      {always, typed(apiServerDeployment)},
	bindata.BatchGatewayProcessorDeployment:      {always, typed(processorDeployment)},
	bindata.BatchGatewayGCDeployment:             {always, typed(gcDeployment)},
	bindata.BatchGatewayAsyncProcessorDeployment: {asyncEnabled, typed(asyncProcessorDeployment)},

	// The engine fills in each budget's spec and whether it is wanted (DisruptionBudgetOf).
	bindata.BatchGatewayAPIServerPodDisruptionBudget:      {engineDecides, typed[policyv1.PodDisruptionBudget]()},
	bindata.BatchGatewayProcessorPodDisruptionBudget:      {engineDecides, typed[policyv1.PodDisruptionBudget]()},
	bindata.BatchGatewayGCPodDisruptionBudget:             {engineDecides, typed[policyv1.PodDisruptionBudget]()},
	bindata.BatchGatewayAsyncProcessorPodDisruptionBudget: {engineDecides, typed[policyv1.PodDisruptionBudget]()},

	// withNetworkPolicies fills in each policy from its component's rendered Deployment.
	bindata.BatchGatewayAPIServerNetworkPolicy:      {networkPolicyEnabled, typed[networkingv1.NetworkPolicy]()},
	bindata.BatchGatewayProcessorNetworkPolicy:      {networkPolicyEnabled, typed[networkingv1.NetworkPolicy]()},
	bindata.BatchGatewayGCNetworkPolicy:             {networkPolicyEnabled, typed[networkingv1.NetworkPolicy]()},
	bindata.BatchGatewayAsyncProcessorNetworkPolicy: {both(asyncEnabled, networkPolicyEnabled), typed[networkingv1.NetworkPolicy]()},

	bindata.BatchGatewayAPIServerCertificate:                {certManagerEnabled, unstructuredWith(apiServerCertificate)},
	bindata.BatchGatewayAPIServerHTTPRoute:                  {httpRouteEnabled, unstructuredWith(apiServerHTTPRoute)},
	bindata.BatchGatewayAPIServerBackendTLSPolicy:           {backendTLSWanted, unstructuredWith()},
	bindata.BatchGatewayAPIServerServiceMonitor:             {monitoringEnabled, unstructuredWith()},
	bindata.BatchGatewayProcessorPodMonitor:                 {monitoringEnabled, unstructuredWith()},
	bindata.BatchGatewayGCPodMonitor:                        {monitoringEnabled, unstructuredWith()},
	bindata.BatchGatewayAsyncProcessorPodMonitor:            {both(asyncEnabled, monitoringEnabled), unstructuredWith()},
	bindata.BatchGatewayAsyncProcessorModelServerPodMonitor: {modelServerMonitorEnabled, unstructuredWith(modelServerPodMonitor)},
	bindata.BatchGatewayPrometheusRule:                      {prometheusRuleEnabled, unstructuredWith(prometheusRuleLabels)},
	bindata.BatchGatewayAsyncProcessorPrometheusRule:        {both(asyncEnabled, prometheusRuleEnabled), unstructuredWith(prometheusRuleLabels)},
}

// alsoNeeds says, for the assets that need more than the spec asks for, whether a wanted object
// has it; without it, it is not wanted (and one made before is deleted): the Certificate an
// issuer the administrator's allowlists allow, the backend CA ConfigMap a certificate to hold.
var alsoNeeds = map[string]func(*renderer) bool{
	bindata.BatchGatewayAPIServerCertificate: issuerAllowed,
	bindata.BatchGatewayAPIServerBackendCA:   hasBackendCA,
}

// typed builds a built-in kind from its manifest and applies the CR with the given functions,
// in order.
func typed[T any, PT interface {
	*T
	runtime.Object
}](apply ...func(*renderer, PT) error) func(*renderer, map[string]interface{}, bool) (runtime.Object, error) {
	return func(r *renderer, content map[string]interface{}, wanted bool) (runtime.Object, error) {
		obj := PT(new(T))
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, obj); err != nil {
			return nil, fmt.Errorf("convert: %w", err)
		}
		return applyCR(r, obj, wanted, apply)
	}
}

// unstructuredWith builds a kind of an optional CRD and applies the CR with the given
// functions, in order.
func unstructuredWith(apply ...func(*renderer, *unstructured.Unstructured) error) func(*renderer, map[string]interface{}, bool) (runtime.Object, error) {
	return func(r *renderer, content map[string]interface{}, wanted bool) (runtime.Object, error) {
		return applyCR(r, &unstructured.Unstructured{Object: content}, wanted, apply)
	}
}

// applyCR applies the CR to an object it wants; an unwanted object keeps the manifest's
// content, enough to name it for deletion.
func applyCR[O runtime.Object](r *renderer, obj O, wanted bool, apply []func(*renderer, O) error) (runtime.Object, error) {
	if !wanted {
		return obj, nil
	}
	for _, f := range apply {
		if err := f(r, obj); err != nil {
			return nil, err
		}
	}
	return obj, nil
}

// --- when the CR wants an asset ---

func always(*batchv1alpha1.LLMBatchGatewaySpec) bool { return true }

// engineDecides is the rule of an asset whose wanted the engine decides after the render (a
// PodDisruptionBudget: engine.Asset.DisruptionBudgetOf); rendered alone, it is not wanted.
func engineDecides(*batchv1alpha1.LLMBatchGatewaySpec) bool { return false }

// asyncEnabled: the async-processor runs in async dispatch mode, and only with its config (the
// CRD requires asyncConfig in that mode).
func asyncEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return spec.Processor.DispatchMode == batchv1alpha1.DispatchModeAsync && spec.Processor.AsyncConfig != nil
}

// asyncConfigMapWanted: the async-processor's ConfigMap holds only worker pools and request
// transforms; without either there is nothing to mount.
func asyncConfigMapWanted(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	if !asyncEnabled(spec) {
		return false
	}
	async := spec.Processor.AsyncConfig
	return len(async.WorkerPools) > 0 || (async.TransformConfig != nil && len(async.TransformConfig.RequestTransforms) > 0)
}

func grafanaEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return spec.Grafana != nil && spec.Grafana.Enabled
}

func monitoringEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return spec.Monitoring != nil && spec.Monitoring.Enabled
}

func prometheusRuleEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return spec.PrometheusRule != nil && spec.PrometheusRule.Enabled
}

func httpRouteEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return spec.HTTPRoute != nil && spec.HTTPRoute.Enabled
}

func tlsEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return spec.TLS != nil && spec.TLS.Enabled
}

// backendTLSWanted: the HTTPRoute's backend, the apiserver, serves HTTPS, so the Gateway API
// implementation needs a BackendTLSPolicy and the CA it names (issue 16, defect 2; upstream
// sent plain HTTP to the HTTPS port).
func backendTLSWanted(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return httpRouteEnabled(spec) && tlsEnabled(spec)
}

// hasBackendCA: the apiserver's TLS Secret holds a certificate for the BackendTLSPolicy's CA
// ConfigMap. A ConfigMap holds certificates only (issue 33): none is written while the Secret is
// missing or holds no CERTIFICATE block, and the policy's CA reference stays unresolved
// meanwhile, which the Gateway API implementation reports on the policy (an empty CA verified
// nothing either).
func hasBackendCA(r *renderer) bool { return r.backendCA != "" }

// issuerAllowed: the administrator allows the certificate's issuer (notAllowed).
func issuerAllowed(r *renderer) bool { return len(notAllowed(r.cr, r.policy)) == 0 }

// certManagerEnabled: cert-manager issues the apiserver's certificate.
func certManagerEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return tlsEnabled(spec) && spec.TLS.CertManager != nil
}

func modelServerMonitorEnabled(spec *batchv1alpha1.LLMBatchGatewaySpec) bool {
	return asyncEnabled(spec) && spec.Processor.AsyncConfig.ModelServerMonitor != nil && spec.Processor.AsyncConfig.ModelServerMonitor.Enabled
}

func both(a, b func(*batchv1alpha1.LLMBatchGatewaySpec) bool) func(*batchv1alpha1.LLMBatchGatewaySpec) bool {
	return func(spec *batchv1alpha1.LLMBatchGatewaySpec) bool { return a(spec) && b(spec) }
}

// --- ServiceAccounts and ConfigMaps ---

// asyncImagePullSecrets puts spec.imagePullSecrets on the async-processor's ServiceAccount,
// where upstream's chart puts them (the batch components have them on their pods).
func asyncImagePullSecrets(r *renderer, sa *corev1.ServiceAccount) error {
	sa.ImagePullSecrets = append([]corev1.LocalObjectReference(nil), r.spec().ImagePullSecrets...)
	return nil
}

func apiServerConfigMap(r *renderer, cm *corev1.ConfigMap) error {
	return setConfigFile(cm, apiServerConfigFor(r.spec(), r.shared))
}

func processorConfigMap(r *renderer, cm *corev1.ConfigMap) error {
	config, err := processorConfigFor(r.spec(), r.shared)
	if err != nil {
		return err
	}
	return setConfigFile(cm, config)
}

func gcConfigMap(r *renderer, cm *corev1.ConfigMap) error {
	return setConfigFile(cm, gcConfigFor(r.spec(), r.shared))
}

func setConfigFile(cm *corev1.ConfigMap, config interface{}) error {
	data, err := marshalConfig(config)
	if err != nil {
		return err
	}
	cm.Data = map[string]string{configFileKey: data}
	return nil
}

// backendCAConfigMap holds the CA the BackendTLSPolicy verifies the apiserver with.
func backendCAConfigMap(r *renderer, cm *corev1.ConfigMap) error {
	cm.Data = map[string]string{backendCAKey: r.backendCA}
	return nil
}

// backendCAKey is the key of a BackendTLSPolicy's CA ConfigMap, the one Gateway API requires,
// and the key of a TLS Secret's CA (cert-manager writes it).
const backendCAKey = "ca.crt"

func asyncProcessorConfigMap(r *renderer, cm *corev1.ConfigMap) error {
	files, err := asyncConfigFiles(r.spec().Processor.AsyncConfig)
	cm.Data = files
	return err
}

// --- the apiserver Service ---

// apiServerService names the API port https, with appProtocol https, when TLS is on and
// follows the observability port.
func apiServerService(r *renderer, svc *corev1.Service) error {
	for i := range svc.Spec.Ports {
		port := &svc.Spec.Ports[i]
		switch port.Name {
		case portHTTP:
			if tlsEnabled(r.spec()) {
				port.Name = portHTTPS
				// Whatever routes to the port learns it speaks HTTPS (issue 16, defect 2).
				port.AppProtocol = ptr.To("https")
			}
		case portObservability:
			port.Port = observabilityPort(r.spec().APIServer.Config)
		}
	}
	return nil
}

// Port names of the apiserver; probes and the Service refer to them.
const (
	portHTTP          = "http"
	portHTTPS         = "https"
	portObservability = "observability"
)

// --- Deployments ---

// deploymentHook changes a rendered Deployment for one CR field group. Each does one thing.
type deploymentHook = engine.DeploymentHook

// runHooks runs the hooks on a component's Deployment; every component has one container,
// which the hooks change.
func runHooks(d *appsv1.Deployment, hooks ...deploymentHook) error {
	if len(d.Spec.Template.Spec.Containers) != 1 {
		return fmt.Errorf("the manifest must have exactly one container")
	}
	return engine.RunHooks(d, hooks...)
}

func apiServerDeployment(r *renderer, d *appsv1.Deployment) error {
	s := r.spec()
	api := s.APIServer
	hooks := []deploymentHook{
		r.withImage(componentAPIServer),
		withReplicas(api.Replicas),
		withPullPolicy(api.ImagePullPolicy),
		withResources(api.Resources),
		withVerbosity(apiServerVerbosity(api.Config)),
		withContainerPort(portHTTP, apiServerPort(api.Config)),
		withContainerPort(portObservability, observabilityPort(api.Config)),
		withEnv(otelEnv(s.OTEL, batchServiceVersion, "")...),
		withFileStorageVolume(s.FileStorage),
		withFSGroup(s.FileStorage, r.openShift),
		withAPIServerTLSVolume(s.TLS, r.names.APIServerTLS),
		withPodImagePullSecrets(s.ImagePullSecrets),
	}
	return runHooks(d, hooks...)
}

func processorDeployment(r *renderer, d *appsv1.Deployment) error {
	s := r.spec()
	proc := s.Processor
	var verbosity int32
	if proc.Config != nil && proc.Config.Logging != nil {
		verbosity = proc.Config.Logging.Verbosity
	}
	return runHooks(d,
		r.withImage(componentProcessor),
		withReplicas(proc.Replicas),
		withPullPolicy(proc.ImagePullPolicy),
		withResources(proc.Resources),
		withVerbosity(verbosity),
		withEnv(otelEnv(s.OTEL, batchServiceVersion, "")...),
		withFileStorageVolume(s.FileStorage),
		withFSGroup(s.FileStorage, r.openShift),
		withPodImagePullSecrets(s.ImagePullSecrets),
	)
}

// gcDeployment: upstream gives the garbage collector no OpenTelemetry env.
func gcDeployment(r *renderer, d *appsv1.Deployment) error {
	s := r.spec()
	var verbosity int32
	if s.GC.Config != nil && s.GC.Config.Logging != nil {
		verbosity = s.GC.Config.Logging.Verbosity
	}
	return runHooks(d,
		r.withImage(componentGC),
		withReplicas(s.GC.Replicas),
		withPullPolicy(s.GC.ImagePullPolicy),
		withResources(s.GC.Resources),
		withVerbosity(verbosity),
		withFileStorageVolume(s.FileStorage),
		withFSGroup(s.FileStorage, r.openShift),
		withPodImagePullSecrets(s.ImagePullSecrets),
	)
}

// asyncProcessorDeployment: spec.imagePullSecrets are on the ServiceAccount, not the pod.
func asyncProcessorDeployment(r *renderer, d *appsv1.Deployment) error {
	s := r.spec()
	async := s.Processor.AsyncConfig
	files, err := asyncConfigFiles(async)
	if err != nil {
		return err
	}
	env := otelEnv(s.OTEL, asyncServiceVersion, asyncChartName)
	if async.Redis != nil {
		env = append(env, secretEnv("REDIS_URL", r.credentialsSecret, keyRedisURL))
	}
	return runHooks(d,
		r.withImage(componentAsyncProcessor),
		withReplicas(async.Replicas),
		withPullPolicy(async.ImagePullPolicy),
		withResources(async.Resources),
		withArgs(asyncProcessorArgs(s, files)...),
		withEnv(env...),
		withAsyncConfigVolume(len(files) > 0, r.names.AsyncProcessorConfig),
		withAsyncTLSVolume(async.TLS),
	)
}

// withImage fails when the component has no image; the manifest's placeholder already holds it.
func (r *renderer) withImage(component string) deploymentHook {
	return func(*appsv1.Deployment) error { return r.images.requireImage(component) }
}

func container(d *appsv1.Deployment) *corev1.Container {
	return &d.Spec.Template.Spec.Containers[0]
}

// withReplicas sets the CR's replicas; nil keeps the manifest's 1 (the CRD's default).
func withReplicas(replicas *int32) deploymentHook {
	return func(d *appsv1.Deployment) error {
		if replicas != nil {
			d.Spec.Replicas = ptr.To(*replicas)
		}
		return nil
	}
}

// withPullPolicy sets the CR's image pull policy; empty keeps the manifest's.
func withPullPolicy(policy corev1.PullPolicy) deploymentHook {
	return func(d *appsv1.Deployment) error {
		if policy != "" {
			container(d).ImagePullPolicy = policy
		}
		return nil
	}
}

// withResources merges the CR's resources into the manifest's defaults (mergeResources).
func withResources(cr *corev1.ResourceRequirements) deploymentHook {
	return func(d *appsv1.Deployment) error {
		c := container(d)
		c.Resources = mergeResources(c.Resources, cr)
		return nil
	}
}

// withVerbosity sets --v=; 0 keeps the manifest's 2.
func withVerbosity(verbosity int32) deploymentHook {
	return func(d *appsv1.Deployment) error {
		if verbosity == 0 {
			return nil
		}
		c := container(d)
		for i, arg := range c.Args {
			if strings.HasPrefix(arg, verbosityFlag) {
				c.Args[i] = verbosityFlag + strconv.Itoa(int(verbosity))
				return nil
			}
		}
		return fmt.Errorf("the manifest has no %s argument", verbosityFlag)
	}
}

const verbosityFlag = "--v="

func apiServerVerbosity(cfg *batchv1alpha1.APIServerConfigSpec) int32 {
	if cfg != nil && cfg.Logging != nil {
		return cfg.Logging.Verbosity
	}
	return 0
}

// withContainerPort sets the number of a named container port; probes and the Service refer
// to it by name.
func withContainerPort(name string, port int32) deploymentHook {
	return func(d *appsv1.Deployment) error {
		c := container(d)
		for i := range c.Ports {
			if c.Ports[i].Name == name {
				c.Ports[i].ContainerPort = port
				return nil
			}
		}
		return fmt.Errorf("the manifest has no container port %q", name)
	}
}

func withArgs(args ...string) deploymentHook {
	return func(d *appsv1.Deployment) error {
		container(d).Args = args
		return nil
	}
}

// withEnv appends env to the manifest's.
func withEnv(env ...corev1.EnvVar) deploymentHook {
	return func(d *appsv1.Deployment) error {
		c := container(d)
		c.Env = append(c.Env, env...)
		return nil
	}
}

// withVolume adds a volume and its mount; the mount goes before the credentials mount (the
// manifest's last), where upstream has it.
func withVolume(volume corev1.Volume, mount corev1.VolumeMount) deploymentHook {
	return func(d *appsv1.Deployment) error {
		pod := &d.Spec.Template.Spec
		c := container(d)
		pod.Volumes = insertBeforeSecrets(pod.Volumes, volume, func(v corev1.Volume) string { return v.Name })
		c.VolumeMounts = insertBeforeSecrets(c.VolumeMounts, mount, func(m corev1.VolumeMount) string { return m.Name })
		return nil
	}
}

// secretsVolume is the projected credentials Secret every batch pod mounts.
const secretsVolume = "secrets"

func insertBeforeSecrets[T any](list []T, item T, name func(T) string) []T {
	if n := len(list); n > 0 && name(list[n-1]) == secretsVolume {
		return append(list[:n-1:n-1], item, list[n-1])
	}
	return append(list, item)
}

// withFileStorageVolume mounts the fs storage PVC where the components keep files.
func withFileStorageVolume(storage *batchv1alpha1.FileStorageSpec) deploymentHook {
	if storage == nil || storage.FS == nil {
		return noHook
	}
	return withVolume(
		corev1.Volume{Name: "files-storage", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: storage.FS.ClaimName},
		}},
		corev1.VolumeMount{Name: "files-storage", MountPath: fsBasePath(storage.FS)},
	)
}

// fsGroup is the group the fs storage volume is made writable for: distroless's "nonroot"
// (65532), which the operand images run as.
const fsGroup int64 = 65532

// withFSGroup makes the fs storage volume writable by the pod (issue 16, defect 4: upstream set
// no fsGroup, so a volume whose root directory belongs to root, as block storage formats it,
// refused every upload with "mkdirat: permission denied" while /ready stayed 200). On plain
// Kubernetes the pod asks for fsGroup 65532: the kubelet gives the volume that group, writable,
// and the process the group as a supplementary one. fsGroupChangePolicy OnRootMismatch walks
// the volume only when its root does not have the group yet, so a large volume does not slow
// every start. On OpenShift the pod sets no fsGroup: the restricted-v2 SCC rejects one outside
// the namespace's range (openshift.io/sa.scc.supplemental-groups) and injects the range's
// first group itself, which does the same; the probe asks discovery for security.openshift.io.
func withFSGroup(storage *batchv1alpha1.FileStorageSpec, openShift bool) deploymentHook {
	if storage == nil || storage.FS == nil || openShift {
		return noHook
	}
	return func(d *appsv1.Deployment) error {
		pod := &d.Spec.Template.Spec
		if pod.SecurityContext == nil {
			pod.SecurityContext = &corev1.PodSecurityContext{}
		}
		pod.SecurityContext.FSGroup = ptr.To(fsGroup)
		pod.SecurityContext.FSGroupChangePolicy = ptr.To(corev1.FSGroupChangeOnRootMismatch)
		return nil
	}
}

// withAPIServerTLSVolume mounts the apiserver's serving certificate at /etc/tls.
func withAPIServerTLSVolume(tls *batchv1alpha1.TLSSpec, issuedSecret string) deploymentHook {
	if tls == nil || !tls.Enabled {
		return noHook
	}
	secret, err := apiServerTLSSecret(tls, issuedSecret)
	if err != nil {
		return func(*appsv1.Deployment) error { return err }
	}
	return withVolume(
		corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}},
		corev1.VolumeMount{Name: "tls", MountPath: "/etc/tls", ReadOnly: true},
	)
}

// apiServerTLSSecret is the Secret with the apiserver's serving certificate: the CR's, or the
// one cert-manager issues for the Certificate. Exactly one of the two, as upstream's chart
// requires (the CRD's rules say so too).
func apiServerTLSSecret(tls *batchv1alpha1.TLSSpec, issuedSecret string) (string, error) {
	switch {
	case tls.SecretName != "" && tls.CertManager != nil:
		return "", fmt.Errorf("spec.tls: secretName and certManager are mutually exclusive")
	case tls.SecretName != "":
		return tls.SecretName, nil
	case tls.CertManager != nil:
		return issuedSecret, nil
	}
	return "", fmt.Errorf("spec.tls.enabled needs secretName or certManager")
}

// withAsyncConfigVolume mounts the async-processor's ConfigMap when it exists.
func withAsyncConfigVolume(exists bool, configMap string) deploymentHook {
	if !exists {
		return noHook
	}
	return withVolume(
		corev1.Volume{Name: "ap-config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}},
		}},
		corev1.VolumeMount{Name: "ap-config", MountPath: asyncConfigDir, ReadOnly: true},
	)
}

// withAsyncTLSVolume mounts the Secret with the certificates the async-processor uses towards
// the inference gateway.
func withAsyncTLSVolume(tls *batchv1alpha1.AsyncTLSSpec) deploymentHook {
	if tls == nil || tls.SecretName == "" {
		return noHook
	}
	return withVolume(
		corev1.Volume{Name: "tls-certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: tls.SecretName}}},
		corev1.VolumeMount{Name: "tls-certs", MountPath: asyncTLSDir, ReadOnly: true},
	)
}

const asyncTLSDir = "/etc/tls"

// withPodImagePullSecrets sets spec.imagePullSecrets on the pod.
func withPodImagePullSecrets(secrets []corev1.LocalObjectReference) deploymentHook {
	return func(d *appsv1.Deployment) error {
		if len(secrets) > 0 {
			d.Spec.Template.Spec.ImagePullSecrets = append([]corev1.LocalObjectReference(nil), secrets...)
		}
		return nil
	}
}

func noHook(*appsv1.Deployment) error { return nil }

// service.version of the OpenTelemetry resource: the charts' appVersion.
const (
	batchServiceVersion = "0.0.1"
	asyncServiceVersion = "0.7.0"
)

// Chart defaults of the OpenTelemetry sampler, used when the CR names none.
const (
	defaultOTELSampler    = "parentbased_traceidratio"
	defaultOTELSamplerArg = "1.0"
)

// otelEnv is the OpenTelemetry exporter's env, only with spec.otel.endpoint: without it the
// containers have none. serviceName, when not "", is OTEL_SERVICE_NAME (the async-processor
// chart sets it, the batch chart does not), in the charts' order: before
// OTEL_RESOURCE_ATTRIBUTES.
func otelEnv(otel *batchv1alpha1.OTELSpec, serviceVersion, serviceName string) []corev1.EnvVar {
	if otel == nil || otel.Endpoint == "" {
		return nil
	}
	env := []corev1.EnvVar{
		fieldEnv("POD_NAME", "metadata.name"),
		fieldEnv("NAMESPACE", "metadata.namespace"),
		{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Value: otel.Endpoint},
		{Name: "OTEL_EXPORTER_OTLP_INSECURE", Value: strconv.FormatBool(otel.Insecure)},
		{Name: "OTEL_TRACES_SAMPLER", Value: cmp.Or(otel.Sampler, defaultOTELSampler)},
		{Name: "OTEL_TRACES_SAMPLER_ARG", Value: cmp.Or(otel.SamplerArg, defaultOTELSamplerArg)},
	}
	if serviceName != "" {
		env = append(env, corev1.EnvVar{Name: "OTEL_SERVICE_NAME", Value: serviceName})
	}
	return append(env, corev1.EnvVar{Name: "OTEL_RESOURCE_ATTRIBUTES", Value: "k8s.namespace.name=$(NAMESPACE),k8s.pod.name=$(POD_NAME),service.version=" + serviceVersion})
}

func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: path}}}
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key,
	}}}
}

// mergeResources merges the CR's resources into the chart's defaults, resource name by
// resource name, as upstream does, with two fixes (reference §7.3): every resource name the CR
// gives is passed through (upstream keeps only cpu and memory), and a default never makes
// requests exceed limits: a default limit below the CR's request for the same resource is
// dropped, and so is a default request above the CR's limit (Kubernetes then takes the
// request from the limit).
func mergeResources(defaults corev1.ResourceRequirements, cr *corev1.ResourceRequirements) corev1.ResourceRequirements {
	if cr == nil {
		return defaults
	}
	merged := corev1.ResourceRequirements{
		Limits:   overlay(defaults.Limits, cr.Limits),
		Requests: overlay(defaults.Requests, cr.Requests),
		Claims:   append([]corev1.ResourceClaim(nil), cr.Claims...),
	}
	for name, limit := range merged.Limits {
		_, limitFromCR := cr.Limits[name]
		request, hasRequest := merged.Requests[name]
		if limitFromCR || !hasRequest || request.Cmp(limit) <= 0 {
			continue
		}
		delete(merged.Limits, name)
	}
	for name, request := range merged.Requests {
		_, requestFromCR := cr.Requests[name]
		limit, limitFromCR := cr.Limits[name]
		if !requestFromCR && limitFromCR && request.Cmp(limit) > 0 {
			delete(merged.Requests, name)
		}
	}
	if len(merged.Claims) == 0 {
		merged.Claims = nil
	}
	return merged
}

// overlay returns base with over's entries set (copies; neither input is changed).
func overlay(base, over corev1.ResourceList) corev1.ResourceList {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := corev1.ResourceList{}
	for name, q := range base {
		out[name] = q.DeepCopy()
	}
	for name, q := range over {
		out[name] = q.DeepCopy()
	}
	return out
}

// --- the async-processor's arguments ---

// asyncProcessorArgs are the async-processor's command-line arguments. Redis settings (the
// queues) only with asyncConfig.redis, as upstream; the queues come from asyncQueues; without
// any queue, upstream's single-queue flags.
func asyncProcessorArgs(spec *batchv1alpha1.LLMBatchGatewaySpec, configFiles map[string]string) []string {
	async := spec.Processor.AsyncConfig
	var args []string
	if redis := async.Redis; redis != nil {
		args = append(args, "--message-queue-impl=redis-sortedset")
		args = append(args, asyncQueueArgs(&spec.Processor)...)
		args = append(args,
			"--redis.ss.result-queue-name", "result-list",
			"--redis.ss.poll-interval-ms", strconv.Itoa(int(ptr.Deref(redis.PollIntervalMs, 1000))),
			"--redis.ss.batch-size", strconv.Itoa(int(ptr.Deref(redis.BatchSize, 10))),
		)
	}
	if async.PrometheusURL != "" {
		args = append(args, "--prometheus-url="+async.PrometheusURL)
	}
	if async.PrometheusCacheTTL != "" {
		args = append(args, "--prometheus-cache-ttl="+async.PrometheusCacheTTL)
	}
	if _, ok := configFiles[workerPoolsKey]; ok {
		args = append(args, "--pool-config-file="+asyncConfigDir+"/"+workerPoolsKey)
	}
	if _, ok := configFiles[transformConfigKey]; ok {
		args = append(args, "--transform-config-file="+asyncConfigDir+"/"+transformConfigKey)
	}
	args = append(args,
		"--concurrency="+strconv.Itoa(int(ptr.Deref(async.Concurrency, 8))),
		"--drain-timeout="+cmp.Or(async.DrainTimeout, "2m"),
		"--health-port=8081",
		"--metrics-endpoint-auth=false",
		"--metrics-port=9090",
	)
	if otel := spec.OTEL; otel != nil && otel.RedisTracing && otel.Endpoint != "" {
		args = append(args, "--redis-tracing=true")
	}
	return append(args, asyncTLSArgs(async.TLS)...)
}

// asyncQueueArgs are the queue flags: the queue list as JSON, or upstream's single-queue
// flags when there is no queue at all (no queuesConfig and no model gateway pool).
func asyncQueueArgs(processor *batchv1alpha1.ProcessorSpec) []string {
	if queues := asyncQueues(processor); len(queues) > 0 {
		data, _ := json.Marshal(queues) // strings and string maps always encode
		return []string{"--redis.ss.queues-config", string(data)}
	}
	async := processor.AsyncConfig
	igw := ""
	if async.InferenceGateway != nil {
		igw = async.InferenceGateway.URL
	}
	args := []string{
		"--redis.ss.igw-base-url=" + igw,
		"--redis.ss.request-path-url", cmp.Or(async.Redis.RequestPathURL, defaultAsyncRequestPath),
		"--redis.ss.request-queue-name", "request-sortedset",
	}
	if async.Redis.GateType != "" {
		params, _ := json.Marshal(async.Redis.GateParams)
		if async.Redis.GateParams == nil {
			params = []byte("{}")
		}
		args = append(args, "--redis.ss.gate-type="+async.Redis.GateType, "--redis.ss.gate-params="+string(params))
	}
	return args
}

// asyncTLSArgs point the async-processor at the keys of asyncConfig.tls's Secret.
func asyncTLSArgs(tls *batchv1alpha1.AsyncTLSSpec) []string {
	if tls == nil {
		return nil
	}
	var args []string
	if tls.InsecureSkipVerify {
		args = append(args, "--tls-insecure-skip-verify=true")
	}
	if tls.CACertKey != "" {
		args = append(args, "--tls-ca-cert="+asyncTLSDir+"/"+tls.CACertKey)
	}
	if tls.CertKey != "" && tls.KeyKey != "" {
		args = append(args, "--tls-cert="+asyncTLSDir+"/"+tls.CertKey, "--tls-key="+asyncTLSDir+"/"+tls.KeyKey)
	}
	return args
}

// --- kinds of optional CRDs ---

// apiServerCertificate: cert-manager issues the apiserver's serving certificate from the CR's
// issuer. Without dnsNames in the CR, the Service's DNS names (the manifest's), which upstream
// leaves to the user to guess (reference §7.9).
func apiServerCertificate(r *renderer, cert *unstructured.Unstructured) error {
	cm := r.spec().TLS.CertManager
	if err := unstructured.SetNestedField(cert.Object, cm.IssuerName, "spec", "issuerRef", "name"); err != nil {
		return err
	}
	if cm.IssuerKind != "" {
		if err := unstructured.SetNestedField(cert.Object, cm.IssuerKind, "spec", "issuerRef", "kind"); err != nil {
			return err
		}
	}
	if len(cm.DNSNames) > 0 {
		return unstructured.SetNestedStringSlice(cert.Object, cm.DNSNames, "spec", "dnsNames")
	}
	return nil
}

// apiServerHTTPRoute attaches the route to the CR's parent Gateways (upstream's default
// Gateway when it names none) and carries the CR's annotations.
func apiServerHTTPRoute(r *renderer, route *unstructured.Unstructured) error {
	hr := r.spec().HTTPRoute
	if len(hr.Annotations) > 0 {
		route.SetAnnotations(copyMap(hr.Annotations))
	}
	if len(hr.ParentRefs) == 0 {
		return nil
	}
	refs := make([]interface{}, 0, len(hr.ParentRefs))
	for i, ref := range hr.ParentRefs {
		if ref.Name == "" {
			// The Gateway API rejects the route; upstream's chart refuses to render it.
			return fmt.Errorf("spec.httpRoute.parentRefs[%d].name is empty", i)
		}
		m := map[string]interface{}{"name": ref.Name}
		if ref.Namespace != "" {
			m["namespace"] = ref.Namespace
		}
		if ref.SectionName != "" {
			m["sectionName"] = ref.SectionName
		}
		refs = append(refs, m)
	}
	return unstructured.SetNestedSlice(route.Object, refs, "spec", "parentRefs")
}

// modelServerPodMonitor applies asyncConfig.modelServerMonitor; unset fields keep the
// manifest's defaults. The CR's selector labels are added to the manifest's (llm-d.ai/role:
// decode), the CR's value winning for a label both have: upstream's chart takes the selector
// from Helm's values, which merge the CR's map into the chart's default map key by key, so a
// CR's selector never selected pods of other roles.
func modelServerPodMonitor(r *renderer, pm *unstructured.Unstructured) error {
	msm := r.spec().Processor.AsyncConfig.ModelServerMonitor
	if len(msm.Selector) > 0 {
		selector, _, err := unstructured.NestedStringMap(pm.Object, "spec", "selector", "matchLabels")
		if err != nil {
			return err
		}
		for k, v := range msm.Selector {
			selector[k] = v
		}
		if err := unstructured.SetNestedStringMap(pm.Object, selector, "spec", "selector", "matchLabels"); err != nil {
			return err
		}
	}
	endpoints, _, err := unstructured.NestedSlice(pm.Object, "spec", "podMetricsEndpoints")
	if err != nil || len(endpoints) != 1 {
		return fmt.Errorf("the manifest must have one podMetricsEndpoint")
	}
	endpoint := endpoints[0].(map[string]interface{})
	for key, value := range map[string]string{"port": msm.Port, "path": msm.Path, "interval": msm.Interval} {
		if value != "" {
			endpoint[key] = value
		}
	}
	return unstructured.SetNestedSlice(pm.Object, endpoints, "spec", "podMetricsEndpoints")
}

// prometheusRuleLabels adds spec.prometheusRule.labels (for a Prometheus's ruleSelector); the
// operand's own labels win over them.
func prometheusRuleLabels(r *renderer, rule *unstructured.Unstructured) error {
	extra := r.spec().PrometheusRule.Labels
	if len(extra) == 0 {
		return nil
	}
	labels := copyMap(extra)
	for k, v := range rule.GetLabels() {
		labels[k] = v
	}
	rule.SetLabels(labels)
	return nil
}

func copyMap(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
