package inferencegateway

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/llm-infra/llm-infra-operator/bindata"
	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
	"github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1/testcases"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine/enginetest"
)

func testMCP(name string, spec v1alpha1.MCPSpec) *v1alpha1.MCP {
	return &v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "mcp"}, Spec: spec}
}

func renderMCPObjects(t *testing.T, mcp *v1alpha1.MCP) map[string]renderedObject {
	t.Helper()
	objs, err := renderMCP(mcp)
	if err != nil {
		t.Fatalf("renderMCP: %v", err)
	}
	if len(objs) != len(bindata.MCPAssets) {
		t.Fatalf("%d objects, want %d", len(objs), len(bindata.MCPAssets))
	}
	for i, o := range objs {
		if o.asset != bindata.MCPAssets[i] {
			t.Errorf("object %d is %s, want %s", i, o.asset, bindata.MCPAssets[i])
		}
	}
	return byAsset(objs)
}

// TestRenderMCPEmptySpec: upstream's names, selector and port; the image's own entrypoint.
func TestRenderMCPEmptySpec(t *testing.T) {
	objs := renderMCPObjects(t, testMCP("memory", v1alpha1.MCPSpec{}))
	svc := objs[bindata.MCPService].obj.(*corev1.Service)
	d := objs[bindata.MCPDeployment].obj.(*appsv1.Deployment)
	hpa := objs[bindata.MCPHPA]
	if svc.Name != "memory-service" || d.Name != "memory" || hpa.obj.(metav1.Object).GetName() != "memory" || hpa.wanted {
		t.Errorf("names %s, %s, %s (HPA wanted %v)", svc.Name, d.Name, hpa.obj.(metav1.Object).GetName(), hpa.wanted)
	}
	want := map[string]string{appLabel: "memory"}
	if !reflect.DeepEqual(d.Spec.Selector.MatchLabels, want) || !reflect.DeepEqual(svc.Spec.Selector, want) {
		t.Errorf("selectors %v, %v: want upstream's %v", d.Spec.Selector.MatchLabels, svc.Spec.Selector, want)
	}
	for asset, o := range objs {
		labels := o.obj.(metav1.Object).GetLabels()
		for k, v := range objectLabels("memory", componentMCPServer) {
			if labels[k] != v {
				t.Errorf("%s: label %s = %q, want %q", asset, k, labels[k], v)
			}
		}
	}
	c := engine.ContainerOf(d, mcpContainer)
	if c.Image != "node:lts" || c.Command != nil || c.Args != nil || *d.Spec.Replicas != 1 {
		t.Errorf("image %q, command %v, args %v, replicas %d", c.Image, c.Command, c.Args, *d.Spec.Replicas)
	}
	if !reflect.DeepEqual(c.Ports, []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}) ||
		!reflect.DeepEqual(effectiveEnv(c.Env), map[string]string{"SERVER_HOST": "0.0.0.0", "SERVER_PORT": "8080", "HOME": "/home/mcp", "npm_config_cache": "/home/mcp/.npm"}) {
		t.Errorf("ports %v, env %v", c.Ports, c.Env)
	}
	if p := svc.Spec.Ports; len(p) != 1 || p[0].Port != 8080 || p[0].TargetPort != intstr.FromString("http") || svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("Service %v %s", p, svc.Spec.Type)
	}
}

func TestRenderMCPFields(t *testing.T) {
	spec := v1alpha1.MCPSpec{
		Replicas: ptr.To[int32](0),
		Image:    "registry.example/mcp:v1",
		Server: &v1alpha1.MCPServerSpec{
			Port: 3000, Path: "/sse", Command: []string{"npx"}, Args: []string{"-y", "@modelcontextprotocol/server-memory"},
			TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "mcp-tls"},
		},
	}
	objs := renderMCPObjects(t, testMCP("memory", spec))
	d := objs[bindata.MCPDeployment].obj.(*appsv1.Deployment)
	c := engine.ContainerOf(d, mcpContainer)
	if c.Image != "registry.example/mcp:v1" || !reflect.DeepEqual(c.Command, []string{"npx"}) || !reflect.DeepEqual(c.Args, spec.Server.Args) || *d.Spec.Replicas != 0 {
		t.Errorf("image %q, command %v, args %v, replicas %d", c.Image, c.Command, c.Args, *d.Spec.Replicas)
	}
	if c.Ports[0].ContainerPort != 3000 || effectiveEnv(c.Env)["SERVER_PORT"] != "3000" {
		t.Errorf("port %d, SERVER_PORT %s", c.Ports[0].ContainerPort, effectiveEnv(c.Env)["SERVER_PORT"])
	}
	if svc := objs[bindata.MCPService].obj.(*corev1.Service); svc.Spec.Ports[0].Port != 3000 {
		t.Errorf("Service port %d", svc.Spec.Ports[0].Port)
	}
	wantVolumes := []corev1.Volume{
		{Name: "mcp-tls-volume", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "mcp-tls"}}},
		{Name: "home", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}},
	}
	wantMounts := []corev1.VolumeMount{{Name: "mcp-tls-volume", MountPath: "/etc/tls", ReadOnly: true}, {Name: "home", MountPath: "/home/mcp"}}
	if !reflect.DeepEqual(d.Spec.Template.Spec.Volumes, wantVolumes) || !reflect.DeepEqual(c.VolumeMounts, wantMounts) {
		t.Errorf("volumes %v, mounts %v", d.Spec.Template.Spec.Volumes, c.VolumeMounts)
	}
	spec.Server.Args[0] = "mutated"
	if c.Args[0] == "mutated" {
		t.Errorf("the Deployment shares the CR's args")
	}
}

// TestMCPWritableHome: npx on node:lts as user 65532 needs a writable HOME and npm cache
// (issue 16, defect 3: "npm error code EACCES ... mkdir '/.npm'"); the pod keeps the restricted
// profile and gets an emptyDir for both, whatever else it mounts.
func TestMCPWritableHome(t *testing.T) {
	for name, spec := range map[string]v1alpha1.MCPSpec{
		"empty spec": {},
		"npx with TLS": {Server: &v1alpha1.MCPServerSpec{Command: []string{"npx"}, Args: []string{"-y", "@modelcontextprotocol/server-everything", "streamableHttp"},
			TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "home"}}},
	} {
		t.Run(name, func(t *testing.T) {
			d := renderMCPObjects(t, testMCP("everything", spec))[bindata.MCPDeployment].obj.(*appsv1.Deployment)
			c := engine.ContainerOf(d, mcpContainer)
			env := effectiveEnv(c.Env)
			home := env["HOME"]
			if home == "" || home == "/" || !strings.HasPrefix(env["npm_config_cache"], home+"/") {
				t.Fatalf("HOME %q, npm_config_cache %q: want a home of its own with npm's cache in it", home, env["npm_config_cache"])
			}
			var mount *corev1.VolumeMount
			for i := range c.VolumeMounts {
				if c.VolumeMounts[i].MountPath == home {
					mount = &c.VolumeMounts[i]
				}
			}
			if mount == nil || mount.ReadOnly {
				t.Fatalf("mounts %+v: nothing writable at HOME %s", c.VolumeMounts, home)
			}
			names := map[string]int{}
			for _, v := range d.Spec.Template.Spec.Volumes {
				names[v.Name]++
				if v.Name == mount.Name && v.EmptyDir == nil {
					t.Errorf("HOME's volume %+v: want an emptyDir", v)
				}
			}
			for n, count := range names {
				if count > 1 {
					t.Errorf("volume %s twice", n)
				}
			}
			if err := engine.RunHooks(d, engine.PodSecurityRestrictedNonRoot.Hooks(engine.Kubernetes)...); err != nil {
				t.Fatal(err)
			}
			if sc := d.Spec.Template.Spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != engine.NonRootUser {
				t.Errorf("pod security context %+v: the restricted profile as user %d stays", sc, engine.NonRootUser)
			}
		})
	}
}

func TestRenderMCPHPA(t *testing.T) {
	objs := renderMCPObjects(t, testMCP("memory", v1alpha1.MCPSpec{
		Replicas: ptr.To[int32](2),
		HPA:      &v1alpha1.HPASpec{Enabled: true, Config: &v1alpha1.CustomHorizontalPodAutoscalerSpec{MinReplicas: ptr.To[int32](2), MaxReplicas: 6}},
	}))
	if r := objs[bindata.MCPDeployment].obj.(*appsv1.Deployment).Spec.Replicas; r != nil {
		t.Errorf("replicas %d while the autoscaler owns them", *r)
	}
	hpa := objs[bindata.MCPHPA]
	spec := hpa.obj.(*autoscalingv2.HorizontalPodAutoscaler).Spec
	if !hpa.wanted || *spec.MinReplicas != 2 || spec.MaxReplicas != 6 ||
		spec.ScaleTargetRef != (autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "memory"}) {
		t.Errorf("HPA wanted %v, spec %+v", hpa.wanted, spec)
	}
}

func TestMCPURL(t *testing.T) {
	for _, tc := range []struct {
		spec v1alpha1.MCPSpec
		want string
	}{
		{want: "http://memory-service.mcp.svc.cluster.local:8080/mcp"},
		{spec: v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{Port: 3000, Path: "/sse"}}, want: "http://memory-service.mcp.svc.cluster.local:3000/sse"},
		{spec: v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{Port: 8443, TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "t"}}}, want: "https://memory-service.mcp.svc.cluster.local:8443/mcp"},
		{spec: v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{TLS: &v1alpha1.MCPTLSConfig{SecretName: "t"}}}, want: "http://memory-service.mcp.svc.cluster.local:8080/mcp"},
	} {
		if got := mcpURL(testMCP("memory", tc.spec)); got != tc.want {
			t.Errorf("mcpURL(%+v) = %q, want %q", tc.spec.Server, got, tc.want)
		}
	}
}

func TestMCPPodInputs(t *testing.T) {
	if got := mcpPodInputs(testMCP("m", v1alpha1.MCPSpec{})); got.Secrets != nil || got.ConfigMaps != nil {
		t.Errorf("an MCP without TLS reads %+v", got)
	}
	got := mcpPodInputs(testMCP("m", v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "t"}}}))
	if want := []types.NamespacedName{{Namespace: "mcp", Name: "t"}}; !reflect.DeepEqual(got.Secrets, want) {
		t.Errorf("Secrets %v, want %v", got.Secrets, want)
	}
}

func TestMCPDiscovery(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mcp       *v1alpha1.MCPServersSpec
		enabled   bool
		namespace string
		matches   map[string]string // labels the selector must match
		rejects   map[string]string // labels it must not match
		err       bool
	}{
		{name: "no MCP"},
		{name: "MCP without discovery", mcp: &v1alpha1.MCPServersSpec{Enabled: true}},
		{name: "discovery while MCP is off", mcp: &v1alpha1.MCPServersSpec{ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{Enabled: true}}},
		{
			name: "the Gateway's namespace, every MCP", enabled: true, namespace: "llm", matches: map[string]string{},
			mcp: &v1alpha1.MCPServersSpec{Enabled: true, ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{Enabled: true}},
		},
		{
			name: "empty selector: every MCP", enabled: true, namespace: "llm", matches: map[string]string{"a": "b"},
			mcp: &v1alpha1.MCPServersSpec{Enabled: true, ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{Enabled: true, Selector: &metav1.LabelSelector{}}},
		},
		{
			name: "namespace and labels", enabled: true, namespace: "mcp",
			matches: map[string]string{"mcp-group": "group1", "x": "y"}, rejects: map[string]string{"mcp-group": "group2"},
			mcp: &v1alpha1.MCPServersSpec{Enabled: true, ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{
				Enabled: true, Namespace: "mcp", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"mcp-group": "group1"}},
			}},
		},
		{
			name: "a selector that does not parse", err: true,
			mcp: &v1alpha1.MCPServersSpec{Enabled: true, ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{
				Enabled: true, Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Sometimes"}}},
			}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			namespace, selector, enabled, err := mcpDiscovery(testGateway(v1alpha1.GatewaySpec{MCP: tc.mcp}))
			if (err != nil) != tc.err || enabled != tc.enabled || namespace != tc.namespace {
				t.Fatalf("mcpDiscovery = %q, %v, %v, %v", namespace, selector, enabled, err)
			}
			if tc.matches != nil && !selector.Matches(labels.Set(tc.matches)) {
				t.Errorf("%v does not match %v", selector, tc.matches)
			}
			if tc.rejects != nil && selector.Matches(labels.Set(tc.rejects)) {
				t.Errorf("%v matches %v", selector, tc.rejects)
			}
		})
	}
}

func TestMCPServerURLs(t *testing.T) {
	discovered := []v1alpha1.MCP{
		*testMCP("b", v1alpha1.MCPSpec{}),
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "mcp"}, Status: v1alpha1.MCPStatus{URL: "http://a.example/mcp"}},
		*testMCP("tls", v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{Port: 8443, Path: "/sse", TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "t"}}}),
	}
	static := []v1alpha1.MCPServer{{Name: "x", URL: "http://z.example/mcp"}, {Name: "dup", URL: "http://a.example/mcp"}, {Name: "y", URL: "http://z.example/mcp"}}
	discovery := &v1alpha1.MCPServiceDiscoverySpec{Enabled: true}
	for _, tc := range []struct {
		name string
		mcp  *v1alpha1.MCPServersSpec
		want []string
	}{
		{name: "MCP off", mcp: &v1alpha1.MCPServersSpec{Servers: static, ServiceDiscovery: discovery}},
		{name: "none", mcp: &v1alpha1.MCPServersSpec{Enabled: true}, want: []string{}},
		{name: "static only, without duplicates", mcp: &v1alpha1.MCPServersSpec{Enabled: true, Servers: static}, want: []string{"http://a.example/mcp", "http://z.example/mcp"}},
		{
			name: "static and discovered, sorted, status.url preferred",
			mcp:  &v1alpha1.MCPServersSpec{Enabled: true, Servers: static, ServiceDiscovery: discovery},
			want: []string{
				"http://a.example/mcp", "http://b-service.mcp.svc.cluster.local:8080/mcp",
				"http://z.example/mcp", "https://tls-service.mcp.svc.cluster.local:8443/sse",
			},
		},
		{
			name: "discovery off: what the controller passes does not count",
			mcp:  &v1alpha1.MCPServersSpec{Enabled: true, ServiceDiscovery: &v1alpha1.MCPServiceDiscoverySpec{}},
			want: []string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mcpServerURLs(testGateway(v1alpha1.GatewaySpec{MCP: tc.mcp}), discovered)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("mcpServerURLs = %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestMCPReadiness: an MCP server is ready once it accepts connections on its port (npx installs
// the package first), so status.ready means it serves.
func TestMCPReadiness(t *testing.T) {
	d := renderMCPObjects(t, testMCP("everything", v1alpha1.MCPSpec{Server: &v1alpha1.MCPServerSpec{Port: 3001}}))[bindata.MCPDeployment].obj.(*appsv1.Deployment)
	c := engine.ContainerOf(d, mcpContainer)
	p := c.ReadinessProbe
	if p == nil || p.TCPSocket == nil || p.TCPSocket.Port.StrVal != c.Ports[0].Name || c.Ports[0].ContainerPort != 3001 {
		t.Fatalf("readiness probe %+v on ports %+v: want a TCP probe of the server's port", p, c.Ports)
	}
}

// TestReadyMCPServers: the gateway's pods restart when a discovered MCP server becomes ready,
// because the gateway connects to its servers only at start-up.
func TestReadyMCPServers(t *testing.T) {
	ready := func(name string, r bool) v1alpha1.MCP {
		m := testMCP(name, v1alpha1.MCPSpec{})
		m.Status.Ready = r
		return *m
	}
	if got := readyMCPServers(nil); got != nil {
		t.Errorf("none discovered: %v, want nil (no annotation)", got)
	}
	if got := readyMCPServers([]v1alpha1.MCP{ready("a", false)}); got == nil || len(got) != 0 {
		t.Errorf("one discovered, not ready: %#v, want empty", got)
	}
	got := readyMCPServers([]v1alpha1.MCP{ready("b", true), ready("c", false), ready("a", true)})
	want := []string{"http://a-service.mcp.svc.cluster.local:8080/mcp", "http://b-service.mcp.svc.cluster.local:8080/mcp"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readyMCPServers = %#v, want %#v", got, want)
	}
}

// FuzzRenderMCP renders MCP specs built from fuzz input: rendering never panics and the same
// input renders the same objects.
func FuzzRenderMCP(f *testing.F) {
	seed, _ := json.Marshal(v1alpha1.MCPSpec{
		Replicas: ptr.To[int32](2), Image: "i",
		Server: &v1alpha1.MCPServerSpec{Port: 3000, Path: "/sse", Command: []string{"c"}, Args: []string{"a"}, TLS: &v1alpha1.MCPTLSConfig{Enabled: true, SecretName: "t"}},
		HPA:    &v1alpha1.HPASpec{Enabled: true, Config: &v1alpha1.CustomHorizontalPodAutoscalerSpec{MaxReplicas: 3}},
	})
	f.Add(seed, "memory")
	f.Add([]byte("{}"), "m")
	// The golden MCPs (upstream's renders, golden_mcp_test.go).
	for _, name := range mcpGolden.caseNames(f) {
		spec, _ := json.Marshal(mcpGolden.cr(f, name).Spec)
		f.Add(spec, name)
	}
	// The admission table's valid MCPs, which test/reliability/dryrun renders too.
	for _, c := range testcases.MCPAccepted {
		obj, err := c.Object()
		if err != nil {
			f.Fatal(err)
		}
		spec, _ := json.Marshal(obj["spec"])
		f.Add(spec, "memory")
	}
	f.Fuzz(func(t *testing.T, specJSON []byte, name string) {
		var spec v1alpha1.MCPSpec
		if err := json.Unmarshal(specJSON, &spec); err != nil {
			return
		}
		mcp := &v1alpha1.MCP{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: spec}
		first, err1 := renderMCP(mcp)
		second, err2 := renderMCP(mcp.DeepCopy())
		_ = mcpURL(mcp)
		_ = mcpPodInputs(mcp)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v, %v", err1, err2)
		}
		for i := range first {
			if first[i].wanted != second[i].wanted || canonical(t, first[i].obj) != canonical(t, second[i].obj) {
				t.Fatalf("%s renders differently from the same input", first[i].asset)
			}
		}
		if err1 != nil || !enginetest.AdmittedName(name, 55) {
			return
		}
		for _, ro := range first {
			if err := enginetest.WellFormed(ro.obj, "ns"); err != nil {
				t.Fatalf("%s: %v", ro.asset, err)
			}
		}
	})
}
