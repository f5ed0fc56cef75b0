package inferencegateway

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

// minimalGateway is upstream's gateway-minimal example (golden case), with its provider Secret.
func minimalGateway(t *testing.T) (*v1alpha1.Gateway, *corev1.Secret) {
	gw := goldenCR(t, "gateway-minimal")
	gw.UID, gw.ResourceVersion = "", ""
	return gw, secret("openai-secret", map[string]string{"api_key": "sk-very-secret"})
}

func TestGatewayAppliesOwnedObjectsAndReportsStatus(t *testing.T) {
	gw, key := minimalGateway(t)
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	d := env.deployment(gw.Name)
	if ref := metav1.GetControllerOfNoCopy(d); ref == nil || ref.Kind != "Gateway" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("Deployment controller = %+v", ref)
	}
	if !engine.IsManaged(d.Labels) || d.Spec.Selector.MatchLabels["app"] != gw.Name {
		t.Errorf("labels %v, selector %v", d.Labels, d.Spec.Selector)
	}
	if sc := d.Spec.Template.Spec.SecurityContext; sc == nil || !ptr.Deref(sc.RunAsNonRoot, false) || ptr.Deref(sc.RunAsUser, 0) != engine.NonRootUser {
		t.Errorf("pod security context = %+v, want the restricted profile with a non-root user", sc)
	}
	if d.Spec.Template.Annotations[engine.ConfigHashAnnotationPrefix+"secret-openai-secret"] == "" {
		t.Errorf("the provider Secret must be hashed into the pod template: %v", d.Spec.Template.Annotations)
	}
	for _, name := range []string{gw.Name} {
		if _, err := env.kube.CoreV1().Services(ns).Get(env.ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("Service: %v", err)
		}
		if _, err := env.kube.CoreV1().ServiceAccounts(ns).Get(env.ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("ServiceAccount: %v", err)
		}
	}
	env.expectCondition(gw.Name, v1alpha1.ConditionAvailable, metav1.ConditionFalse, engine.ReasonDeploymentUnavailable)
	c := env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)
	if !strings.Contains(c.Message, "servicemonitors.monitoring.coreos.com") {
		t.Errorf("Degraded=False should still say the ServiceMonitor was skipped for want of its CRD: %q", c.Message)
	}
	status := env.gateway(gw.Name).Status
	if status.Phase != v1alpha1.PhasePending || status.ObservedGeneration == 0 {
		t.Errorf("phase %q, observedGeneration %d", status.Phase, status.ObservedGeneration)
	}
	if status.URL != "http://simple-gateway.llm.svc.cluster.local:8080" || status.ProviderSummary != "OpenAI" || status.ServiceAccountName != gw.Name {
		t.Errorf("status = url %q, providers %q, serviceAccount %q", status.URL, status.ProviderSummary, status.ServiceAccountName)
	}

	env.makeAvailable(gw.Name)
	enginetest.WaitFor(t, "the available Deployment cached", func() bool {
		d := env.op.newGatewayRun(gw).CachedDeployment(gw.Name)
		return d != nil && d.Status.AvailableReplicas == 1
	})
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(gw.Name, v1alpha1.ConditionAvailable, metav1.ConditionTrue, engine.ReasonAsExpected)
	if got := env.gateway(gw.Name).Status; got.Phase != v1alpha1.PhaseRunning || got.ReadyReplicas != 1 || got.AvailableReplicas != 1 {
		t.Errorf("status = phase %q ready %d available %d", got.Phase, got.ReadyReplicas, got.AvailableReplicas)
	}
	for _, ev := range env.recorder.Events() {
		if strings.Contains(ev.Message, "sk-very-secret") {
			t.Errorf("an event carries a Secret value: %s", ev.Message)
		}
	}
}

func TestGatewayQuietSyncMakesNoRequest(t *testing.T) {
	gw, key := minimalGateway(t)
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	for i := 0; i < 2; i++ {
		if err := env.syncGateway(gw.Name); err != nil {
			t.Fatal(err)
		}
	}
	enginetest.ClearActions(env.kube, env.apiext, env.dynamic, env.crs)
	for i := 0; i < 3; i++ {
		if err := env.op.syncGateway(env.ctx, env.syncCtx, ns+"/"+gw.Name); err != nil {
			t.Fatal(err)
		}
	}
	if w := enginetest.Actions(enginetest.WriteVerbs, env.kube, env.apiext, env.dynamic, env.crs); len(w) > 0 {
		t.Errorf("quiet syncs wrote: %v", w)
	}
	if r := enginetest.Actions(enginetest.ReadVerbs, env.kube, env.apiext, env.dynamic, env.crs); len(r) > 0 {
		t.Errorf("quiet syncs read from the API: %v", r)
	}
}

// TestHPAOwnsTheReplicasAndTurningItOffDeletesOnlyIt: the HPA (minReplicas 2) owns the
// replicas; turned off, it and the PodDisruptionBudget its two replicas asked for are deleted,
// nothing else.
func TestHPAOwnsTheReplicasAndTurningItOffDeletesOnlyIt(t *testing.T) {
	gw, key := minimalGateway(t)
	gw.Spec.HPA = &v1alpha1.HPASpec{Enabled: true, Config: &v1alpha1.CustomHorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](2), MaxReplicas: 6}}
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	names := NamesFor(gw)
	if !env.exists(hpasGVR, names.HPA) {
		t.Fatal("the HPA was not created")
	}
	if !env.exists(pdbsGVR, gw.Name) {
		t.Fatal("no PodDisruptionBudget for the HPA's two replicas at least")
	}
	// The HPA scales the Deployment; the next apply (a spec change) must keep that.
	d := env.deployment(gw.Name)
	d.Spec.Replicas = ptr.To[int32](5)
	if _, err := env.kube.AppsV1().Deployments(ns).Update(env.ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	env.settle()
	env.updateGateway(gw.Name, func(gw *v1alpha1.Gateway) { gw.Spec.Environment = "staging" })
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	if got := ptr.Deref(env.deployment(gw.Name).Spec.Replicas, 0); got != 5 {
		t.Errorf("replicas = %d after an apply, want the HPA's 5", got)
	}

	env.updateGateway(gw.Name, func(gw *v1alpha1.Gateway) { gw.Spec.HPA = nil })
	enginetest.ClearActions(env.kube, env.dynamic)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	if env.exists(hpasGVR, names.HPA) {
		t.Error("the HPA outlived spec.hpa")
	}
	var deletes []string
	for _, w := range enginetest.Actions(enginetest.WriteVerbs, env.kube, env.dynamic) {
		if strings.HasPrefix(w, "delete") {
			deletes = append(deletes, w)
		}
	}
	slices.Sort(deletes)
	if len(deletes) != 2 || !strings.Contains(deletes[0], "horizontalpodautoscalers") || !strings.Contains(deletes[1], "poddisruptionbudgets") {
		t.Errorf("deletes = %v, want exactly the HPA and the PodDisruptionBudget (one replica left)", deletes)
	}
}

func TestProviderSecretRotationRollsThePods(t *testing.T) {
	gw, key := minimalGateway(t)
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	hashKey := engine.ConfigHashAnnotationPrefix + "secret-openai-secret"
	before := env.deployment(gw.Name).Spec.Template.Annotations[hashKey]
	key.Data["api_key"] = []byte("sk-rotated")
	if _, err := env.kube.CoreV1().Secrets(ns).Update(env.ctx, key, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the rotated Secret in its watch", func() bool {
		s := env.op.secrets()
		obj, err := s.Get(typesName(ns, "openai-secret"))
		return err == nil && string(obj.(*corev1.Secret).Data["api_key"]) == "sk-rotated"
	})
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	if after := env.deployment(gw.Name).Spec.Template.Annotations[hashKey]; after == before || after == "" {
		t.Errorf("%s %q -> %q: rotation must roll the pods", hashKey, before, after)
	}
}

func TestMCPDiscoveryFollowsMCPServers(t *testing.T) {
	gw, key := minimalGateway(t)
	gw.Spec.MCP = &v1alpha1.MCPServersSpec{Enabled: true, ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{Enabled: true,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"group": "tools"}}}}
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	mcp := &v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: "files", Namespace: ns, UID: "mcp-uid", Labels: map[string]string{"group": "tools"}}}
	if _, err := env.crs.CoreV1alpha1().MCPs(ns).Create(env.ctx, mcp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the MCP in the informer", func() bool { _, err := env.op.mcps.MCPs(ns).Get("files"); return err == nil })
	if keys := env.op.gatewaysDiscovering(mcp); !slices.Equal(keys, []string{ns + "/" + gw.Name}) {
		t.Errorf("an MCP event queues %v, want the discovering Gateway", keys)
	}
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	status := env.gateway(gw.Name).Status
	want := mcpURL(mcp)
	if status.MCPServerCount != 1 || !slices.Contains(status.MCPServers, want) {
		t.Errorf("mcpServers = %v (%d), want [%s]", status.MCPServers, status.MCPServerCount, want)
	}
	env.op.mcps.MCPs(ns) // the removal follows from the informer too
	if err := env.crs.CoreV1alpha1().MCPs(ns).Delete(env.ctx, "files", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the MCP gone from the informer", func() bool { _, err := env.op.mcps.MCPs(ns).Get("files"); return err != nil })
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	if got := env.gateway(gw.Name).Status; got.MCPServerCount != 0 {
		t.Errorf("mcpServers after the MCP left = %v", got.MCPServers)
	}
}

// TestCrossNamespaceMCPDiscoveryNeedsAReferenceGrant: a Gateway uses the MCPs of another
// namespace only while a ReferenceGrant there allows it (issue 33); the others are named in
// Degraded with the grant to create, and without the ReferenceGrant CRD cross-namespace
// discovery is off and says so. The grant's events reach the Gateway.
func TestCrossNamespaceMCPDiscoveryNeedsAReferenceGrant(t *testing.T) {
	grant := func(name string) *unstructured.Unstructured {
		to := map[string]any{"group": v1alpha1.GroupVersion.Group, "kind": "MCP"}
		if name != "" {
			to["name"] = name
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1beta1", "kind": "ReferenceGrant",
			"metadata": map[string]any{"name": "gateways-of-llm", "namespace": "tools"},
			"spec": map[string]any{
				"from": []any{map[string]any{"group": v1alpha1.GroupVersion.Group, "kind": "Gateway", "namespace": ns}},
				"to":   []any{to},
			},
		}}
	}
	tests := []struct {
		name    string
		crds    []string
		grant   *unstructured.Unstructured
		servers int
		// degraded is a text of Degraded's message; "": not Degraded.
		degraded string
	}{
		{name: "no ReferenceGrant CRD", degraded: "cross-namespace discovery is off"},
		{name: "no grant", crds: []string{engine.CRDName(engine.ReferenceGrantGVR)},
			degraded: "skipped [files time]; to use them, create a ReferenceGrant in namespace tools from group core.inference-gateway.com, kind Gateway, namespace llm to group core.inference-gateway.com, kind MCP"},
		{name: "a grant for one", crds: []string{engine.CRDName(engine.ReferenceGrantGVR)}, grant: grant("time"), servers: 1, degraded: "skipped [files]"},
		{name: "a grant for every MCP", crds: []string{engine.CRDName(engine.ReferenceGrantGVR)}, grant: grant(""), servers: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gw, key := minimalGateway(t)
			gw.Spec.MCP = &v1alpha1.MCPServersSpec{Enabled: true, ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{Enabled: true, Namespace: "tools"}}
			env := newFakeEnv(t, tt.crds, key)
			env.createGateway(gw)
			for _, name := range []string{"time", "files"} {
				if _, err := env.crs.CoreV1alpha1().MCPs("tools").Create(env.ctx, &v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "tools"}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			enginetest.WaitFor(t, "the MCPs in the informer", func() bool { l, _ := env.op.mcps.MCPs("tools").List(labels.Everything()); return len(l) == 2 })
			if tt.grant != nil {
				if keys, ok := env.op.gatewayRelated(tt.grant, env.op.gatewayCtl.List); !ok || !slices.Equal(keys, []string{ns + "/" + gw.Name}) {
					t.Errorf("the grant's event queues %v, %v; want the Gateway", keys, ok)
				}
				if _, err := env.dynamic.Resource(engine.ReferenceGrantGVR).Namespace("tools").Create(env.ctx, tt.grant, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				enginetest.WaitFor(t, "the grant in the informer", func() bool { g, err := env.optional.ReferenceGrants("tools"); return err == nil && len(g) == 1 })
			}
			if err := env.syncGateway(gw.Name); err != nil {
				t.Fatal(err)
			}
			got := env.gateway(gw.Name).Status
			if int(got.MCPServerCount) != tt.servers {
				t.Errorf("mcpServers = %v, want %d", got.MCPServers, tt.servers)
			}
			if tt.degraded == "" {
				env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)
				return
			}
			c := env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonReferenceNotPermitted)
			if !strings.Contains(c.Message, tt.degraded) {
				t.Errorf("Degraded %q lacks %q", c.Message, tt.degraded)
			}
			if tt.grant == nil {
				return
			}
			// The grant goes: the next sync drops what it allowed.
			if err := env.dynamic.Resource(engine.ReferenceGrantGVR).Namespace("tools").Delete(env.ctx, tt.grant.GetName(), metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			enginetest.WaitFor(t, "the grant gone", func() bool { g, err := env.optional.ReferenceGrants("tools"); return err == nil && len(g) == 0 })
			if err := env.syncGateway(gw.Name); err != nil {
				t.Fatal(err)
			}
			if got := env.gateway(gw.Name).Status; got.MCPServerCount != 0 {
				t.Errorf("mcpServers after the grant went = %v", got.MCPServers)
			}
		})
	}
}

func TestForeignObjectIsReportedNotOverwritten(t *testing.T) {
	gw, key := minimalGateway(t)
	foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: gw.Name, Namespace: ns, Annotations: map[string]string{"owner": "someone"}}}
	env := newFakeEnv(t, nil, key, foreign)
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	c := env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonObjectNotOwned)
	if !strings.Contains(c.Message, "Service "+ns+"/"+gw.Name) {
		t.Errorf("message %q should name the Service", c.Message)
	}
	got, _ := env.kube.CoreV1().Services(ns).Get(env.ctx, gw.Name, metav1.GetOptions{})
	if engine.IsManaged(got.Labels) || got.Annotations["owner"] != "someone" {
		t.Errorf("the foreign Service was changed: %+v", got.ObjectMeta)
	}
	if env.gateway(gw.Name).Status.Phase != v1alpha1.PhaseFailed {
		t.Errorf("phase = %q, want Failed while Degraded and not Available", env.gateway(gw.Name).Status.Phase)
	}
}

func TestGatewayAPIWithoutItsCRDsIsNamed(t *testing.T) {
	gw, key := minimalGateway(t)
	gw.Spec.GatewayAPI = &v1alpha1.RoutingSpec{Enabled: true}
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	c := env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonCRDMissing)
	for _, want := range []string{"gateways.gateway.networking.k8s.io", "httproutes.gateway.networking.k8s.io", "spec.gatewayAPI.enabled"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("message %q should name %s", c.Message, want)
		}
	}
	if strings.Contains(c.Message, "servicemonitors") {
		t.Errorf("the skipped ServiceMonitor is not a problem: %q", c.Message)
	}
}

// TestGatewayClassNotAllowed: a Gateway API Gateway of a class the administrator does not
// allow is not created (not wanted: one made before goes as a feature turned off); the HTTPRoute
// stays; Degraded and a Warning event name the class and the variable that lists the allowed
// ones (issue 33).
func TestGatewayClassNotAllowed(t *testing.T) {
	gw, key := minimalGateway(t)
	gw.Spec.GatewayAPI = &v1alpha1.RoutingSpec{Enabled: true, Gateway: &v1alpha1.RoutingGatewaySpec{GatewayClassName: "public-lb"}}
	crds := []string{engine.CRDName(GatewayAPIGatewayGVR), engine.CRDName(HTTPRouteGVR)}
	allowed := newFakeEnv(t, crds, key)
	allowed.createGateway(gw.DeepCopy())
	if err := allowed.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	if !allowed.exists(GatewayAPIGatewayGVR, gw.Name) {
		t.Fatal("without allowlists the Gateway API Gateway is created, as upstream")
	}

	env := newFakeEnvWithPolicy(t, policyOf(str("internal"), nil), crds, key)
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	if env.exists(GatewayAPIGatewayGVR, gw.Name) {
		t.Error("a Gateway API Gateway of a class not allowed was created")
	}
	if !env.exists(HTTPRouteGVR, gw.Name) {
		t.Error("the HTTPRoute is not governed by the class and must be applied")
	}
	c := env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionTrue, "GatewayClassNotAllowed")
	for _, want := range []string{`"public-lb"`, engine.AllowedGatewayClassesEnv, "[internal]"} {
		if !strings.Contains(c.Message, want) {
			t.Errorf("Degraded %q lacks %q", c.Message, want)
		}
	}
	if !slices.ContainsFunc(env.recorder.Events(), func(ev *corev1.Event) bool {
		return ev.Type == corev1.EventTypeWarning && ev.Reason == "GatewayClassNotAllowed"
	}) {
		t.Error("no Warning event GatewayClassNotAllowed")
	}
}

// TestServiceAnnotationTakenOutOfTheSpecIsRemoved: library-go's apply merges annotations, so
// the operator must itself remove one the spec no longer has, and only those it set.
func TestServiceAnnotationTakenOutOfTheSpecIsRemoved(t *testing.T) {
	gw, key := minimalGateway(t)
	gw.Spec.Service = &v1alpha1.ServiceSpec{Annotations: map[string]string{"example.com/a": "1", "example.com/b": "2"}}
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	svc, err := env.kube.CoreV1().Services(ns).Get(env.ctx, gw.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Annotations["example.com/a"] != "1" || svc.Annotations["example.com/b"] != "2" {
		t.Fatalf("annotations %v, want a and b", svc.Annotations)
	}
	svc.Annotations["example.com/by-hand"] = "kept"
	if _, err := env.kube.CoreV1().Services(ns).Update(env.ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	for _, step := range []struct {
		annotations map[string]string
		want        []string
	}{
		{map[string]string{"example.com/a": "1"}, []string{"example.com/a", "example.com/by-hand"}},
		{nil, []string{"example.com/by-hand"}},
	} {
		env.updateGateway(gw.Name, func(gw *v1alpha1.Gateway) { gw.Spec.Service.Annotations = step.annotations })
		if err := env.syncGateway(gw.Name); err != nil {
			t.Fatal(err)
		}
		svc, err := env.kube.CoreV1().Services(ns).Get(env.ctx, gw.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for k := range svc.Annotations {
			if strings.HasPrefix(k, "example.com/") {
				got = append(got, k)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, step.want) {
			t.Errorf("spec annotations %v: the Service has %v, want %v", step.annotations, got, step.want)
		}
		if _, recorded := svc.Annotations[engine.AppliedAnnotationsKey]; recorded != (len(step.annotations) > 0) {
			t.Errorf("spec annotations %v: record %q = %q", step.annotations, engine.AppliedAnnotationsKey, svc.Annotations[engine.AppliedAnnotationsKey])
		}
	}
}

// TestMCPTLSSecretRotationRollsThePods: an MCP server reads its TLS Secret at start-up; the
// controller watches it, reports it missing by name, and a rotation changes the pod template.
func TestMCPTLSSecretRotationRollsThePods(t *testing.T) {
	env := newFakeEnv(t, nil)
	mcp := &v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: "memory", Namespace: ns, UID: "mcp-uid"},
		Spec: v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "memory-tls"}}}}
	if _, err := env.crs.CoreV1alpha1().MCPs(ns).Create(env.ctx, mcp, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the MCP in the informer", func() bool { _, err := env.op.mcps.MCPs(ns).Get("memory"); return err == nil })
	syncMCP := func() *v1alpha1.MCP {
		t.Helper()
		if err := env.op.syncMCP(env.ctx, env.syncCtx, ns+"/memory"); err != nil {
			t.Fatal(err)
		}
		env.settle()
		got, err := env.crs.CoreV1alpha1().MCPs(ns).Get(env.ctx, "memory", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	degraded := meta.FindStatusCondition(syncMCP().Status.Conditions, v1alpha1.ConditionDegraded)
	if degraded == nil || degraded.Reason != engine.ReasonSecretMissing || !strings.Contains(degraded.Message, "Secret "+ns+"/memory-tls") {
		t.Errorf("without its TLS Secret: Degraded = %+v, want SecretMissing naming it", degraded)
	}

	tls := secret("memory-tls", map[string]string{"tls.crt": "c", "tls.key": "k"})
	if _, err := env.kube.CoreV1().Secrets(ns).Create(env.ctx, tls, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hashKey := engine.ConfigHashAnnotationPrefix + "secret-memory-tls"
	enginetest.WaitFor(t, "the Secret in its watch", func() bool { _, err := env.op.mcpSecrets().Get(typesName(ns, "memory-tls")); return err == nil })
	if c := meta.FindStatusCondition(syncMCP().Status.Conditions, v1alpha1.ConditionDegraded); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("with its TLS Secret: Degraded = %+v", c)
	}
	before := env.deployment("memory").Spec.Template.Annotations[hashKey]
	if before == "" {
		t.Fatalf("the TLS Secret must be hashed into the pod template: %v", env.deployment("memory").Spec.Template.Annotations)
	}

	tls.Data["tls.key"] = []byte("rotated")
	if _, err := env.kube.CoreV1().Secrets(ns).Update(env.ctx, tls, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	enginetest.WaitFor(t, "the rotated Secret in its watch", func() bool {
		obj, err := env.op.mcpSecrets().Get(typesName(ns, "memory-tls"))
		return err == nil && string(obj.(*corev1.Secret).Data["tls.key"]) == "rotated"
	})
	syncMCP()
	if after := env.deployment("memory").Spec.Template.Annotations[hashKey]; after == before || after == "" {
		t.Errorf("%s %q -> %q: rotation must roll the pods", hashKey, before, after)
	}
}

// A Gateway and an MCP of one name want the same Deployment name: the second is refused
// (ObjectNotOwned), and it does not report the other's Deployment as its own availability.
func TestSameNamedMCPDeploymentIsNotTheGatewaysAvailability(t *testing.T) {
	gw, key := minimalGateway(t)
	env := newFakeEnv(t, nil, key)
	env.createMCP(&v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: gw.Name}})
	if err := env.syncMCP(gw.Name); err != nil {
		t.Fatal(err)
	}
	env.makeAvailable(gw.Name)
	env.settle()
	env.createGateway(gw)
	if err := env.syncGateway(gw.Name); err != nil {
		t.Fatal(err)
	}
	env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonObjectNotOwned)
	env.expectCondition(gw.Name, v1alpha1.ConditionAvailable, metav1.ConditionFalse, engine.ReasonNotDeployed)
	if got := env.gateway(gw.Name).Status; got.AvailableReplicas != 0 || got.Phase == v1alpha1.PhaseRunning {
		t.Errorf("the Gateway reports the MCP's Deployment: phase %q, %d available", got.Phase, got.AvailableReplicas)
	}
}

// A discovery selector stored before admission rejected it keeps the static servers.
func TestUnparsableSelectorKeepsStaticServers(t *testing.T) {
	gw, key := minimalGateway(t)
	gw.Spec.MCP = &v1alpha1.MCPServersSpec{Enabled: true,
		Servers: []v1alpha1.MCPServer{{Name: "static", URL: "http://static.example:8080/mcp"}},
		ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{Enabled: true,
			Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn}}}}}
	env := newFakeEnv(t, nil, key)
	env.createGateway(gw)
	run := env.op.newGatewayRun(env.gateway(gw.Name))
	if err := discoverMCPServers(env.ctx, run, nil); err == nil || strings.Count(err.Error(), "spec.mcp.serviceDiscovery.selector") != 1 {
		t.Errorf("err = %v, want one naming the selector once", err)
	}
	if !slices.Equal(run.State.mcpServers, []string{"http://static.example:8080/mcp"}) {
		t.Errorf("mcpServers = %v, want the static server kept", run.State.mcpServers)
	}
}

// TestServiceMonitorCanBeTurnedOffAndYoursIsNoProblem: the ServiceMonitor is the operator's extra
// (upstream makes none). A user's own ServiceMonitor of the Gateway's name is left alone and,
// unless they asked for ours (serviceMonitor.enabled: true), is no problem of the Gateway's;
// enabled: false deletes the operator's (issue 16, defect 7).
func TestServiceMonitorCanBeTurnedOffAndYoursIsNoProblem(t *testing.T) {
	gw, key := minimalGateway(t) // upstream's gateway-minimal: telemetry and metrics on
	env := newFakeEnv(t, []string{"servicemonitors.monitoring.coreos.com"}, key)
	monitors := env.dynamic.Resource(ServiceMonitorGVR).Namespace(ns)
	theirs := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
		"metadata": map[string]interface{}{"name": gw.Name, "namespace": ns, "labels": map[string]interface{}{"team": "observability"}},
		"spec":     map[string]interface{}{"endpoints": []interface{}{map[string]interface{}{"port": "metrics"}}},
	}}
	created, err := monitors.Create(env.ctx, theirs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env.createGateway(gw)
	sync := func() {
		t.Helper()
		if err := env.syncGateway(gw.Name); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	c := env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)
	if !strings.Contains(c.Message, "ServiceMonitor "+ns+"/"+gw.Name) {
		t.Errorf("Degraded=False should note the ServiceMonitor left alone: %q", c.Message)
	}
	if got, _ := monitors.Get(env.ctx, gw.Name, metav1.GetOptions{}); got.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("the user's ServiceMonitor was written: %v", got.GetLabels())
	}

	setServiceMonitor := func(enabled *bool) {
		env.updateGateway(gw.Name, func(g *v1alpha1.Gateway) {
			g.Spec.Telemetry.Metrics.ServiceMonitor = &v1alpha1.ServiceMonitorSpec{Enabled: enabled}
		})
		sync()
	}
	setServiceMonitor(ptr.To(true))
	c = env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionTrue, engine.ReasonObjectNotOwned)
	if !strings.Contains(c.Message, "ServiceMonitor "+ns+"/"+gw.Name) {
		t.Errorf("asked for, the ServiceMonitor in the way is a problem naming it: %q", c.Message)
	}

	if err := monitors.Delete(env.ctx, gw.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	setServiceMonitor(nil)
	ours, err := monitors.Get(env.ctx, gw.Name, metav1.GetOptions{})
	if err != nil || !engine.IsManaged(ours.GetLabels()) {
		t.Fatalf("without the user's, the operator's ServiceMonitor: %v %v", err, ours)
	}
	env.expectCondition(gw.Name, v1alpha1.ConditionDegraded, metav1.ConditionFalse, engine.ReasonAsExpected)

	// The operator deletes only what its caches hold as its own.
	enginetest.WaitFor(t, "the operator's ServiceMonitor in the caches", func() bool {
		_, err := env.caches.GetMeta(ServiceMonitorGVR.GroupResource(), ns, gw.Name)
		return err == nil
	})
	setServiceMonitor(ptr.To(false))
	if _, err := monitors.Get(env.ctx, gw.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("serviceMonitor.enabled false: the operator's ServiceMonitor is still there (%v)", err)
	}
}

// Issue 34: a Deployment is never applied without the hash of a Secret its pods read. One
// created after the CR (or just before it, while the watch had not delivered it) left the
// Deployment created without its hash and updated with it a moment later: a second ReplicaSet,
// a second rollout. The Deployment waits for the Secret now: one create, with the hash.
func TestDeploymentsWaitForTheSecretsTheyMount(t *testing.T) {
	gw, providerKey := minimalGateway(t)
	mcp := &v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: "memory", Namespace: ns, UID: "mcp-uid"},
		Spec: v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "memory-tls"}}}}
	for _, c := range []struct {
		name       string
		deployment string
		late       *corev1.Secret
		create     func(env *fakeEnv)
		sync       func(env *fakeEnv) error
		watch      func(env *fakeEnv) *engine.ReferenceWatches
		condition  func(env *fakeEnv) []metav1.Condition
	}{
		{
			name: "Gateway, its provider's Secret created after it", deployment: gw.Name, late: providerKey,
			create:    func(env *fakeEnv) { env.createGateway(gw.DeepCopy()) },
			sync:      func(env *fakeEnv) error { return env.syncGateway(gw.Name) },
			watch:     func(env *fakeEnv) *engine.ReferenceWatches { return env.op.secrets() },
			condition: func(env *fakeEnv) []metav1.Condition { return env.gateway(gw.Name).Status.Conditions },
		},
		{
			name: "MCP, its TLS Secret created after it", deployment: mcp.Name,
			late:      secret("memory-tls", map[string]string{"tls.crt": "c", "tls.key": "k"}),
			create:    func(env *fakeEnv) { env.createMCP(mcp.DeepCopy()) },
			sync:      func(env *fakeEnv) error { return env.syncMCP(mcp.Name) },
			watch:     func(env *fakeEnv) *engine.ReferenceWatches { return env.op.mcpSecrets() },
			condition: func(env *fakeEnv) []metav1.Condition { return env.mcp(mcp.Name).Status.Conditions },
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newFakeEnv(t, nil)
			c.create(env)
			if err := c.sync(env); err != nil {
				t.Fatal(err)
			}
			if _, err := env.kube.AppsV1().Deployments(ns).Get(env.ctx, c.deployment, metav1.GetOptions{}); err == nil {
				t.Errorf("Deployment %s was applied while a Secret its pods read did not exist", c.deployment)
			}
			p := meta.FindStatusCondition(c.condition(env), v1alpha1.ConditionProgressing)
			if p == nil || p.Reason != engine.ReasonWaitingForMountedSecrets || !strings.Contains(p.Message, ns+"/"+c.late.Name) {
				t.Errorf("Progressing = %+v, want %s naming %s/%s", p, engine.ReasonWaitingForMountedSecrets, ns, c.late.Name)
			}

			if _, err := env.kube.CoreV1().Secrets(ns).Create(env.ctx, c.late, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			enginetest.WaitFor(t, "the Secret in its watch", func() bool { _, err := c.watch(env).Get(typesName(ns, c.late.Name)); return err == nil })
			for range 2 { // the second as the Deployment's own events would bring it: nothing to write
				if err := c.sync(env); err != nil {
					t.Fatal(err)
				}
			}
			var deploymentWrites []string
			for _, w := range enginetest.Actions(enginetest.WriteVerbs, env.kube) {
				if strings.Contains(w, " deployments ") {
					deploymentWrites = append(deploymentWrites, w)
				}
			}
			if len(deploymentWrites) != 1 || !strings.HasPrefix(deploymentWrites[0], "create ") {
				t.Errorf("Deployment writes = %v, want one create", deploymentWrites)
			}
			if key := engine.ConfigHashAnnotationPrefix + "secret-" + c.late.Name; env.deployment(c.deployment).Spec.Template.Annotations[key] == "" {
				t.Errorf("Deployment %s lacks the hash %s", c.deployment, key)
			}
		})
	}
}

// TestGatewayOptionalSecretMissing (fake clients): a provider Secret named only as optional may
// be missing; the pods start without it, so it is no SecretMissing and holds no Deployment
// back. A required one that is missing is both.
func TestGatewayOptionalSecretMissing(t *testing.T) {
	for _, optional := range []bool{false, true} {
		t.Run(fmt.Sprintf("optional=%v", optional), func(t *testing.T) {
			gw, _ := minimalGateway(t)
			refs := 0
			for i := range gw.Spec.Providers {
				for j := range gw.Spec.Providers[i].Env {
					if ref := gw.Spec.Providers[i].Env[j].ValueFrom; ref != nil && ref.SecretKeyRef != nil && ref.SecretKeyRef.Name == "openai-secret" {
						ref.SecretKeyRef.Optional = ptr.To(optional)
						refs++
					}
				}
			}
			if refs == 0 {
				t.Fatal("gateway-minimal no longer references the Secret openai-secret")
			}
			env := newFakeEnv(t, nil) // without the Secret
			env.createGateway(gw)
			if err := env.syncGateway(gw.Name); err != nil {
				t.Fatal(err)
			}
			degraded := meta.FindStatusCondition(env.gateway(gw.Name).Status.Conditions, v1alpha1.ConditionDegraded)
			missing := degraded != nil && degraded.Reason == engine.ReasonSecretMissing && strings.Contains(degraded.Message, "openai-secret")
			if missing == optional {
				t.Errorf("Degraded = %+v: SecretMissing naming openai-secret %v, want %v", degraded, missing, !optional)
			}
			_, err := env.kube.AppsV1().Deployments(ns).Get(env.ctx, gw.Name, metav1.GetOptions{})
			if applied := err == nil; applied != optional {
				t.Errorf("Deployment applied: %v (%v), want %v", applied, err, optional)
			}
		})
	}
}
