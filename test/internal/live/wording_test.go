package live

import "testing"

// The tables' texts (as pkg/apis/internal/admission writes them) and what kube-apiserver
// v1.30.14 printed for them in the admission suite (make test-admission-oldest); the texts
// that 1.30 words as 1.36 does must come back unchanged.
func TestForServer(t *testing.T) {
	for _, tc := range []struct{ name, table, v130 string }{
		{
			name:  "maxLength",
			table: "spec.fileStorage.s3.bucket: Too long: may not be more than 63 bytes",
			v130:  "spec.fileStorage.s3.bucket: Too long: may not be longer than 63",
		},
		{
			name:  "CEL rule on an object",
			table: "spec.server.tls: Invalid value: spec.server.tls.enabled needs certificateRef and keyRef: the gateway serves HTTPS only with both a certificate and a key",
			v130:  `spec.server.tls: Invalid value: "object": spec.server.tls.enabled needs certificateRef and keyRef: the gateway serves HTTPS only with both a certificate and a key`,
		},
		{
			name:  "CEL rule on the root",
			table: "<nil>: Invalid value: metadata.name must have at most 55 characters and no dots: it names the MCP server's Service, <name>-service, a DNS label of at most 63",
			v130:  `<nil>: Invalid value: "object": metadata.name must have at most 55 characters and no dots: it names the MCP server's Service, <name>-service, a DNS label of at most 63`,
		},
		{
			name:  "duplicate list-map key",
			table: `spec.env[1]: Duplicate value: {"name":"A"}`,
			v130:  `spec.env[1]: Duplicate value: map[string]interface {}{"name":"A"}`,
		},
		{name: "pattern", table: `spec.guardrails.externalUrl: Invalid value: "": spec.guardrails.externalUrl in body should match '^https?://.+$'`},
		{name: "minimum", table: "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"},
		{name: "maximum", table: "spec.replicas: Invalid value: 101: spec.replicas in body should be less than or equal to 100"},
		{name: "enum", table: `spec.logLevel: Unsupported value: "Loud"`},
		{name: "required field", table: "spec.fileStorage: Required value"},
		{name: "CEL rule with reason Required", table: "spec.auth: Required value: spec.auth.enabled needs spec.auth.oidc"},
		{name: "CEL rule with reason Forbidden", table: "spec.server.timeout: Forbidden: remove timeout"},
		{name: "rules not checked", table: "some validation rules were not checked because the object was invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.v130
			if want == "" {
				want = tc.table
			}
			if got := ForServer(30, tc.table); got != want {
				t.Errorf("ForServer(30, %q)\n got %q\nwant %q", tc.table, got, want)
			}
			if got := ForServer(36, tc.table); got != tc.table {
				t.Errorf("ForServer(36, %q) = %q: the tables are 1.36's wording", tc.table, got)
			}
		})
	}
}

func TestWordingsSayWhy(t *testing.T) {
	for i, w := range Wordings {
		if len(w.Minors) == 0 || w.Newer == nil || w.Why == "" {
			t.Errorf("Wordings[%d] lacks its minors, its pattern or its reason", i)
		}
	}
}
