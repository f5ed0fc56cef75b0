package live

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestOpenWatches: a watch is open from its ResponseStarted until its ResponseComplete.
func TestOpenWatches(t *testing.T) {
	const user = "system:serviceaccount:ns:op"
	line := func(id, stage, resource, group, uri, received, done string) string {
		return `{"auditID":"` + id + `","stage":"` + stage + `","verb":"watch","requestURI":"` + uri +
			`","user":{"username":"` + user + `"},"objectRef":{"resource":"` + resource + `","apiGroup":"` + group +
			`"},"requestReceivedTimestamp":"` + received + `","stageTimestamp":"` + done + `"}`
	}
	log := strings.Join([]string{
		line("1", "ResponseStarted", "deployments", "apps", "/apis/apps/v1/deployments?watch=true", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
		line("2", "ResponseStarted", "secrets", "", "/api/v1/namespaces/a/secrets?fieldSelector=metadata.name%3Dcreds&watch=true", "2026-01-01T00:00:01Z", "2026-01-01T00:00:01Z"),
		line("3", "ResponseStarted", "secrets", "", "/api/v1/namespaces/b/secrets?fieldSelector=metadata.name%3Dcreds&watch=true", "2026-01-01T00:00:01Z", "2026-01-01T00:00:01Z"),
		line("3", "ResponseComplete", "secrets", "", "/api/v1/namespaces/b/secrets?fieldSelector=metadata.name%3Dcreds&watch=true", "2026-01-01T00:00:01Z", "2026-01-01T00:00:05Z"),
		line("4", "ResponseStarted", "configmaps", "", "/api/v1/configmaps?watch=true", "2026-01-01T00:00:08Z", "2026-01-01T00:00:08Z"),
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := NewAuditLog(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 6, 0, time.UTC)
	want := map[string]int{"deployments.apps": 1, "secrets (one object)": 1}
	if got := a.OpenWatches(user, at); !reflect.DeepEqual(got, want) {
		t.Errorf("OpenWatches at +6s = %v, want %v", got, want)
	}
	if got := a.OpenWatches(user, at.Add(-3*time.Second)); got["secrets (one object)"] != 2 {
		t.Errorf("OpenWatches at +3s = %v, want both Secret watches open", got)
	}
	if got := a.OpenWatches("someone-else", at); len(got) != 0 {
		t.Errorf("another user's watches counted: %v", got)
	}
}
