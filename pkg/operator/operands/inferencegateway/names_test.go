package inferencegateway

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/llm-infra/llm-infra-operator/pkg/apis/inferencegateway/v1alpha1"
)

func TestNamesFor(t *testing.T) {
	for _, tc := range []struct {
		sa   *v1alpha1.ServiceAccountSpec
		want Names
	}{
		{nil, Names{Gateway: "gw", ServiceAccount: "gw", RoutingConfigMap: "gw-routing", HPA: "gw-hpa", ListenerTLSSecret: "gw-tls", ServiceHost: "gw.llm.svc"}},
		{&v1alpha1.ServiceAccountSpec{Create: true, Name: "runner"}, Names{Gateway: "gw", ServiceAccount: "runner", RoutingConfigMap: "gw-routing", HPA: "gw-hpa", ListenerTLSSecret: "gw-tls", ServiceHost: "gw.llm.svc"}},
		{&v1alpha1.ServiceAccountSpec{Create: false}, Names{Gateway: "gw", ServiceAccount: "gw", RoutingConfigMap: "gw-routing", HPA: "gw-hpa", ListenerTLSSecret: "gw-tls", ServiceHost: "gw.llm.svc"}},
	} {
		gw := &v1alpha1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "llm"}, Spec: v1alpha1.GatewaySpec{ServiceAccount: tc.sa}}
		if got := NamesFor(gw); got != tc.want {
			t.Errorf("NamesFor(serviceAccount %+v) = %+v, want %+v", tc.sa, got, tc.want)
		}
	}
}

func TestMCPNamesFor(t *testing.T) {
	if got, want := MCPNamesFor("memory"), (MCPNames{Deployment: "memory", Service: "memory-service", HPA: "memory"}); got != want {
		t.Errorf("MCPNamesFor = %+v, want %+v", got, want)
	}
}
