package v1alpha1

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The messages of the CRD's CEL rules (x-kubernetes-validations), one per rule. The
// +kubebuilder:validation:XValidation markers on the types repeat them word for word (a marker
// cannot name a constant); the package's tests fail when the two differ.
const (
	// Upstream's rules, in words of our own.
	MessageSecretRefName             = "spec.secretRef.name must name the Secret that holds the gateway's credentials"
	MessageFileStorageExactlyOne     = "set exactly one of spec.fileStorage.s3 and spec.fileStorage.fs"
	MessageFSClaimName               = "spec.fileStorage.fs.claimName must name an existing PersistentVolumeClaim"
	MessageTLSNeedsCertificate       = "spec.tls.enabled needs a certificate: set spec.tls.secretName or spec.tls.certManager"
	MessageTLSOneCertificateSource   = "spec.tls.secretName and spec.tls.certManager are mutually exclusive: keep one"
	MessageCertManagerIssuerName     = "spec.tls.certManager.issuerName must name a cert-manager Issuer or ClusterIssuer"
	MessageTLSInsecureSkipVerify     = "tlsInsecureSkipVerify must not be true: trust the endpoint's CA instead (tlsCACertFile; for the async-processor, asyncConfig.tls)"
	MessageAsyncConfigRequired       = "spec.processor.asyncConfig is required when spec.processor.dispatchMode is async"
	MessageInferenceGatewayRequired  = "spec.processor needs an inference gateway: set spec.processor.globalInferenceGateway or spec.processor.modelGateways"
	MessageInferenceGatewayExclusive = "spec.processor.globalInferenceGateway and spec.processor.modelGateways are mutually exclusive: keep one"

	// Rules the processor and the async-processor chart check at start-up, which upstream left
	// to a crash loop.
	MessageSyncGlobalURL          = "spec.processor.globalInferenceGateway.url is required when spec.processor.dispatchMode is sync: the processor sends every request there"
	MessageSyncModelURL           = "every spec.processor.modelGateways entry needs a url when spec.processor.dispatchMode is sync: the processor sends that model's requests there"
	MessageAsyncGlobalGateway     = "spec.processor.globalInferenceGateway is not supported when spec.processor.dispatchMode is async: list each model in spec.processor.modelGateways with its inferencePoolName"
	MessageAsyncPoolName          = "every spec.processor.modelGateways entry needs an inferencePoolName when spec.processor.dispatchMode is async: the processor queues that model's requests for that pool"
	MessageAsyncPoolNameUnique    = "spec.processor.modelGateways entries must not share an inferencePoolName when spec.processor.dispatchMode is async: a pool's queue serves exactly one model"
	MessageAsyncRedis             = "spec.processor.asyncConfig.redis is required when spec.processor.dispatchMode is async: the async-processor reads its queues from Redis"
	MessageAsyncTarget            = "spec.processor.dispatchMode async needs spec.processor.asyncConfig.inferenceGateway.url or spec.processor.asyncConfig.redis.queuesConfig: the async-processor must know where to send requests"
	MessageAsyncGateTypeAndQueues = "spec.processor.asyncConfig.redis.gateType cannot be combined with spec.processor.asyncConfig.redis.queuesConfig: set gateType on each queue instead"
	MessagePerEndpointAboveGlobal = "spec.processor.config.concurrency.perEndpoint must not exceed spec.processor.config.concurrency.global (unset, perEndpoint is 10 and global 100)"
	MessageName                   = "metadata.name must be a DNS label (at most 63 characters, no dots): it is the app.kubernetes.io/instance label of the gateway's objects and starts its Services' names"
	// A container's resource claims must name the pod's resourceClaims, which the operand's
	// pods have none of: any claim makes the Deployment invalid.
	MessageResourceClaims          = "resources.claims is not supported: a claim must name one of the pod's resourceClaims, and the operator's pods have none; remove claims"
	MessageAIMDMinAbovePerEndpoint = "spec.processor.config.concurrency.aimd.min must not exceed spec.processor.config.concurrency.perEndpoint while AIMD is enabled (unset, aimd.min is 5 and perEndpoint 10)"

	// The orphan-recovery rules: upstream's processor refuses a heartbeat of 0, and upstream
	// documents (internal/processor/config/config.go) that the heartbeat must be shorter than
	// the reconciler's interval, without checking it: a longer one makes the reconciler take
	// running jobs for orphans.
	MessageHeartbeatPositive                = "spec.processor.config.heartbeatInterval must be longer than 0s: the processor refuses to start with 0"
	MessageHeartbeatBelowReconcilerInterval = "spec.processor.config.heartbeatInterval must be shorter than spec.gc.config.reconciler.interval while the reconciler is enabled (unset, 5m and 60m): the reconciler takes a running job whose last heartbeat is older than its interval for orphaned; lower the heartbeat or raise the interval"
)

// ValidateSpec checks the rules between fields of the spec that the CRD's CEL rules check at
// admission, and returns the errors the API server returns for them (same paths, types and
// messages). The API server does not check them again for objects stored before a rule existed
// (validation ratcheting), so the operator runs this on every object it reconciles and reports
// a failure as Ready=False with reason ValidationFailed instead of deploying a configuration the
// operand refuses. Per-field constraints of the OpenAPI schema (enums, patterns, bounds) are not
// repeated here: the API server has always enforced them.
func (in *LLMBatchGateway) ValidateSpec() field.ErrorList {
	spec := &in.Spec
	path := field.NewPath("spec")
	var errs field.ErrorList
	if !isDNSLabelName(in.Name, 63) {
		errs = append(errs, field.Invalid(nil, field.OmitValueType{}, MessageName))
	}
	if spec.SecretRef.Name == "" {
		errs = append(errs, field.Required(path.Child("secretRef", "name"), MessageSecretRefName))
	}
	errs = append(errs, spec.FileStorage.validate(path.Child("fileStorage"))...)
	errs = append(errs, spec.TLS.validate(path.Child("tls"))...)
	errs = append(errs, spec.Processor.validate(path.Child("processor"))...)
	errs = append(errs, validateClaims(path.Child("apiServer", "resources"), spec.APIServer.Resources)...)
	errs = append(errs, validateClaims(path.Child("processor", "resources"), spec.Processor.Resources)...)
	errs = append(errs, validateClaims(path.Child("gc", "resources"), spec.GC.Resources)...)
	if spec.Processor.AsyncConfig != nil {
		errs = append(errs, validateClaims(path.Child("processor", "asyncConfig", "resources"), spec.Processor.AsyncConfig.Resources)...)
	}
	errs = append(errs, spec.validateHeartbeat(path)...)
	errs = append(errs, spec.NetworkPolicy.Validate(path.Child("networkPolicy"))...)
	return errs
}

// validateHeartbeat checks the processor's heartbeat against the gc's orphan reconciler, with
// the defaults for unset fields. A value that is no duration is the schema's to report.
func (s *LLMBatchGatewaySpec) validateHeartbeat(path *field.Path) field.ErrorList {
	heartbeatPath := path.Child("processor", "config", "heartbeatInterval")
	heartbeatText, reconciler := DefaultHeartbeatInterval, GCReconcilerConfig{}
	if s.Processor.Config != nil && s.Processor.Config.HeartbeatInterval != "" {
		heartbeatText = s.Processor.Config.HeartbeatInterval
	}
	if s.GC.Config != nil && s.GC.Config.Reconciler != nil {
		reconciler = *s.GC.Config.Reconciler
	}
	heartbeat, err := time.ParseDuration(heartbeatText)
	if err != nil {
		return nil
	}
	var errs field.ErrorList
	if heartbeat <= 0 {
		errs = append(errs, field.Invalid(heartbeatPath, field.OmitValueType{}, MessageHeartbeatPositive))
	}
	if reconciler.Enabled != nil && !*reconciler.Enabled {
		return errs
	}
	interval, err := time.ParseDuration(cmp.Or(reconciler.Interval, DefaultReconcilerInterval))
	if err == nil && heartbeat >= interval {
		errs = append(errs, field.Invalid(heartbeatPath, field.OmitValueType{}, MessageHeartbeatBelowReconcilerInterval))
	}
	return errs
}

// validateClaims is the rule of MessageResourceClaims on a container's resources at path.
func validateClaims(path *field.Path, r *corev1.ResourceRequirements) field.ErrorList {
	if r == nil || len(r.Claims) == 0 {
		return nil
	}
	return field.ErrorList{field.Forbidden(path.Child("claims"), MessageResourceClaims)}
}

func (s *FileStorageSpec) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if (s.S3 != nil) == (s.FS != nil) {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageFileStorageExactlyOne))
	}
	if s.FS != nil && s.FS.ClaimName == "" {
		errs = append(errs, field.Required(path.Child("fs", "claimName"), MessageFSClaimName))
	}
	return errs
}

func (s *TLSSpec) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	if s.Enabled && s.SecretName == "" && s.CertManager == nil {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageTLSNeedsCertificate))
	}
	if s.SecretName != "" && s.CertManager != nil {
		errs = append(errs, field.Invalid(path, field.OmitValueType{}, MessageTLSOneCertificateSource))
	}
	if s.CertManager != nil && s.CertManager.IssuerName == "" {
		errs = append(errs, field.Required(path.Child("certManager", "issuerName"), MessageCertManagerIssuerName))
	}
	return errs
}

func (s *InferenceGatewaySpec) validate(path *field.Path) field.ErrorList {
	if s == nil || !s.TLSInsecureSkipVerify {
		return nil
	}
	return field.ErrorList{field.Forbidden(path.Child("tlsInsecureSkipVerify"), MessageTLSInsecureSkipVerify)}
}

func (s *ProcessorSpec) validate(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	async := s.DispatchMode == DispatchModeAsync
	global := s.GlobalInferenceGateway
	models := slices.Sorted(maps.Keys(s.ModelGateways))

	errs = append(errs, global.validate(path.Child("globalInferenceGateway"))...)
	for _, model := range models {
		gateway := s.ModelGateways[model]
		errs = append(errs, gateway.validate(path.Child("modelGateways").Key(model))...)
	}
	if s.AsyncConfig != nil {
		errs = append(errs, s.AsyncConfig.InferenceGateway.validate(path.Child("asyncConfig", "inferenceGateway"))...)
	}
	if s.Config != nil {
		errs = append(errs, s.Config.Concurrency.validate(path.Child("config", "concurrency"))...)
	}

	if async && s.AsyncConfig == nil {
		errs = append(errs, field.Required(path.Child("asyncConfig"), MessageAsyncConfigRequired))
	}
	if global == nil && len(models) == 0 {
		errs = append(errs, field.Required(path, MessageInferenceGatewayRequired))
	}
	if global != nil && len(models) > 0 {
		errs = append(errs, field.Forbidden(path.Child("globalInferenceGateway"), MessageInferenceGatewayExclusive))
	}
	if !async && global != nil && global.URL == "" {
		errs = append(errs, field.Required(path.Child("globalInferenceGateway", "url"), MessageSyncGlobalURL))
	}
	if !async && slices.ContainsFunc(models, func(m string) bool { return s.ModelGateways[m].URL == "" }) {
		errs = append(errs, field.Required(path.Child("modelGateways"), MessageSyncModelURL))
	}
	if async && global != nil {
		errs = append(errs, field.Forbidden(path.Child("globalInferenceGateway"), MessageAsyncGlobalGateway))
	}
	if async && slices.ContainsFunc(models, func(m string) bool { return s.ModelGateways[m].InferencePoolName == "" }) {
		errs = append(errs, field.Required(path.Child("modelGateways"), MessageAsyncPoolName))
	}
	if async && sharesPool(s.ModelGateways) {
		errs = append(errs, field.Invalid(path.Child("modelGateways"), field.OmitValueType{}, MessageAsyncPoolNameUnique))
	}
	if async && s.AsyncConfig != nil {
		config := s.AsyncConfig
		hasURL := config.InferenceGateway != nil && config.InferenceGateway.URL != ""
		hasQueues := config.Redis != nil && len(config.Redis.QueuesConfig) > 0
		if config.Redis == nil {
			errs = append(errs, field.Required(path.Child("asyncConfig", "redis"), MessageAsyncRedis))
		}
		if !hasURL && !hasQueues {
			errs = append(errs, field.Required(path.Child("asyncConfig"), MessageAsyncTarget))
		}
		if hasQueues && config.Redis.GateType != "" {
			errs = append(errs, field.Forbidden(path.Child("asyncConfig", "redis", "gateType"), MessageAsyncGateTypeAndQueues))
		}
	}
	return errs
}

// sharesPool reports whether two models name the same (non-empty) InferencePool.
func sharesPool(gateways map[string]InferenceGatewaySpec) bool {
	seen := map[string]bool{}
	for _, gateway := range gateways {
		if pool := gateway.InferencePoolName; pool != "" {
			if seen[pool] {
				return true
			}
			seen[pool] = true
		}
	}
	return false
}

func (s *ConcurrencyConfig) validate(path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	global := valueOr(s.Global, DefaultGlobalConcurrency)
	perEndpoint := valueOr(s.PerEndpoint, DefaultPerEndpointConcurrency)
	if perEndpoint > global {
		errs = append(errs, field.Invalid(path.Child("perEndpoint"), field.OmitValueType{}, MessagePerEndpointAboveGlobal))
	}
	aimdEnabled, aimdMin := true, int32(DefaultAIMDMin)
	if s.AIMD != nil {
		aimdEnabled = s.AIMD.Enabled == nil || *s.AIMD.Enabled
		aimdMin = valueOr(s.AIMD.Min, DefaultAIMDMin)
	}
	if aimdEnabled && aimdMin > perEndpoint {
		errs = append(errs, field.Invalid(path.Child("aimd", "min"), field.OmitValueType{}, MessageAIMDMinAbovePerEndpoint))
	}
	return errs
}

// valueOr is v, or the default d when v is unset (zero: these fields have a minimum of 1).
func valueOr(v, d int32) int32 {
	if v == 0 {
		return d
	}
	return v
}

// isDNSLabelName is the CRD's rule on metadata.name: an object name (a DNS subdomain, which the
// API server checks first) of at most max characters without dots, so a DNS label.
func isDNSLabelName(name string, max int) bool {
	return len(name) <= max && !strings.Contains(name, ".")
}
