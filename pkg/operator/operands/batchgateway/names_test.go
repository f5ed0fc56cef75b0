package batchgateway

import (
	"reflect"
	"strings"
	"testing"
)

func TestNamesFor(t *testing.T) {
	// 60 characters: "<cr>-apiserver" is 74, truncated to 63.
	long := strings.Repeat("a", 49) + "batch-gateway"
	for _, tc := range []struct {
		cr   string
		want Names
	}{{
		cr: "batch-gateway-dev",
		want: Names{
			APIServer:               "batch-gateway-dev-apiserver",
			Processor:               "batch-gateway-dev-processor",
			GC:                      "batch-gateway-dev-gc",
			AsyncProcessor:          "batch-gateway-dev-async-processor",
			APIServerConfig:         "batch-gateway-dev-apiserver-config",
			ProcessorConfig:         "batch-gateway-dev-processor-config",
			GCConfig:                "batch-gateway-dev-gc-config",
			AsyncProcessorConfig:    "batch-gateway-dev-async-processor-config",
			APIServerTLS:            "batch-gateway-dev-apiserver-tls",
			Dashboards:              "batch-gateway-dev-batch-gateway-dashboards",
			Alerts:                  "batch-gateway-dev-batch-gateway-alerts",
			AsyncDashboards:         "batch-gateway-dev-async-processor-dashboards",
			AsyncModelServerMonitor: "batch-gateway-dev-async-processor-modelserver",
			Credentials:             "batch-gateway-dev-credentials",
		},
	}, {
		cr: "my-gw",
		want: Names{
			APIServer:               "my-gw-batch-gateway-apiserver",
			Processor:               "my-gw-batch-gateway-processor",
			GC:                      "my-gw-batch-gateway-gc",
			AsyncProcessor:          "my-gw-async-processor",
			APIServerConfig:         "my-gw-batch-gateway-apiserver-config",
			ProcessorConfig:         "my-gw-batch-gateway-processor-config",
			GCConfig:                "my-gw-batch-gateway-gc-config",
			AsyncProcessorConfig:    "my-gw-async-processor-config",
			APIServerTLS:            "my-gw-batch-gateway-apiserver-tls",
			Dashboards:              "my-gw-batch-gateway-dashboards",
			Alerts:                  "my-gw-batch-gateway-alerts",
			AsyncDashboards:         "my-gw-async-processor-dashboards",
			AsyncModelServerMonitor: "my-gw-async-processor-modelserver",
			Credentials:             "my-gw-credentials",
		},
	}} {
		t.Run(tc.cr, func(t *testing.T) {
			if got := NamesFor(tc.cr); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NamesFor(%q) =\n%+v\nwant\n%+v", tc.cr, got, tc.want)
			}
		})
	}
	t.Run("long", func(t *testing.T) {
		got := NamesFor(long)
		if want := long[:49] + "batch-gateway-"; got.APIServer != strings.TrimSuffix(want, "-") {
			t.Errorf("APIServer = %q (%d), want %q", got.APIServer, len(got.APIServer), strings.TrimSuffix(want, "-"))
		}
		if got.APIServerConfig != got.APIServer+"-config" {
			t.Errorf("APIServerConfig = %q: the suffix comes after truncation", got.APIServerConfig)
		}
	})
}

func TestBatchComponentName(t *testing.T) {
	for _, tc := range []struct {
		cr, component, want string
	}{
		{"batch-gateway-dev", "apiserver", "batch-gateway-dev-apiserver"},
		{"my-gw", "apiserver", "my-gw-batch-gateway-apiserver"},
		// "contains", not "starts with" or "ends with".
		{"prod-batch-gateway-eu", "gc", "prod-batch-gateway-eu-gc"},
		{"batch-gateway", "processor", "batch-gateway-processor"},
		{"batchgateway", "gc", "batchgateway-batch-gateway-gc"},
		// Exactly 63 characters: kept whole.
		{strings.Repeat("x", 39), "processor", strings.Repeat("x", 39) + "-batch-gateway-processor"},
		// Truncated to 63.
		{strings.Repeat("x", 50), "apiserver", strings.Repeat("x", 50) + "-batch-gatewa"},
		// The cut falls right after a dash: it is trimmed.
		{strings.Repeat("x", 48), "gc", strings.Repeat("x", 48) + "-batch-gateway"},
		// Only one trailing dash is trimmed, as Helm's trimSuffix does.
		{strings.Repeat("y", 47) + "-batch-gateway--", "gc", strings.Repeat("y", 47) + "-batch-gateway-"},
	} {
		got := batchComponentName(tc.cr, tc.component)
		if got != tc.want {
			t.Errorf("batchComponentName(%q, %q) = %q (%d), want %q", tc.cr, tc.component, got, len(got), tc.want)
		}
		if len(got) > maxNameLength {
			t.Errorf("batchComponentName(%q, %q) is %d characters long", tc.cr, tc.component, len(got))
		}
	}
}

func TestAsyncProcessorName(t *testing.T) {
	for _, tc := range []struct {
		cr, want string
	}{
		{"batch-gateway-dev", "batch-gateway-dev-async-processor"},
		{"batch-gateway-async", "batch-gateway-async-async-processor"},
		{"my-async-processor", "my-async-processor"},
		{"async-processor-1", "async-processor-1"},
		{strings.Repeat("z", 47), strings.Repeat("z", 47) + "-async-processor"},
		{strings.Repeat("z", 48), strings.Repeat("z", 48) + "-async-processo"},
		// Cut right after the dash: trimmed.
		{strings.Repeat("z", 57), strings.Repeat("z", 57) + "-async"},
		// A long name that contains the chart name is truncated too.
		{strings.Repeat("q", 60) + "-async-processor", strings.Repeat("q", 60) + "-as"},
	} {
		if got := asyncProcessorName(tc.cr); got != tc.want {
			t.Errorf("asyncProcessorName(%q) = %q, want %q", tc.cr, got, tc.want)
		}
	}
}

func TestSelectorLabels(t *testing.T) {
	for _, tc := range []struct {
		component string
		want      map[string]string
	}{
		{componentAPIServer, map[string]string{nameLabel: "batch-gateway-apiserver", instanceLabel: "gw", componentLabel: "apiserver"}},
		{componentProcessor, map[string]string{nameLabel: "batch-gateway-processor", instanceLabel: "gw", componentLabel: "processor"}},
		{componentGC, map[string]string{nameLabel: "batch-gateway-gc", instanceLabel: "gw", componentLabel: "gc"}},
		{componentAsyncProcessor, map[string]string{nameLabel: "async-processor", instanceLabel: "gw"}},
	} {
		if got := selectorLabels("gw", tc.component); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("selectorLabels(%s) = %v, want %v", tc.component, got, tc.want)
		}
	}
}

func TestObjectLabels(t *testing.T) {
	for _, tc := range []struct {
		component string
		want      map[string]string
	}{
		{componentAPIServer, map[string]string{nameLabel: "batch-gateway-apiserver", instanceLabel: "gw", componentLabel: "apiserver", PartOfLabel: PartOfValue}},
		// The async pod template gets the component label upstream's lacks.
		{componentAsyncProcessor, map[string]string{nameLabel: "async-processor", instanceLabel: "gw", componentLabel: "async-processor", PartOfLabel: PartOfValue}},
		{componentMonitoring, map[string]string{nameLabel: "batch-gateway", instanceLabel: "gw", componentLabel: "monitoring", PartOfLabel: PartOfValue}},
	} {
		if got := objectLabels("gw", tc.component); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("objectLabels(%s) = %v, want %v", tc.component, got, tc.want)
		}
	}
}
