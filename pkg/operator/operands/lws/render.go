package lws

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/llm-infra/llm-infra-operator/bindata"
	lwsoperatorv1 "github.com/llm-infra/llm-infra-operator/pkg/apis/operator/v1"
)

// Render returns every object a Managed sync applies for cr, in the order it applies them, as
// it applies them (labels, owner reference, the Deployment's hooks), with the operand in
// namespace running image. cert-manager's Secrets are taken as not yet issued: the
// Deployment's pod template carries the hash of the ConfigMap only, whose TLS settings are
// the controller's defaults (no OpenShift TLS profile). It serves checks from
// outside the package: test/reliability/dryrun sends the objects to a real API server.
func Render(cr *lwsoperatorv1.LeaderWorkerSetOperator, namespace, image string) ([]runtime.Object, error) {
	run := (&Operand{namespace: namespace, image: image}).newRun(cr)
	var objs []runtime.Object
	for _, step := range reconcileSteps() {
		if step.Name == "operand ConfigMap" {
			cm, err := operandConfigMap(run.render, run.namespace, nil)
			if err != nil {
				return nil, err
			}
			run.mountedConfigMaps = append(run.mountedConfigMaps, cm)
			objs = append(objs, cm)
		}
		for _, asset := range step.Assets {
			if asset == bindata.LWSNetworkPolicy {
				if cr.Spec.NetworkPolicyEnabled() {
					np, err := renderNetworkPolicy(run.render, cr)
					if err != nil {
						return nil, err
					}
					objs = append(objs, np)
				}
				continue
			}
			if asset == bindata.LWSDeployment {
				d, err := renderDeployment(run, asset)
				if err != nil {
					return nil, err
				}
				objs = append(objs, d)
				continue
			}
			obj, err := run.render.Object(asset)
			if err != nil {
				return nil, err
			}
			objs = append(objs, obj)
		}
	}
	return objs, nil
}
