package sandbox

import (
	"reflect"
	"testing"
)

func TestCapabilities(t *testing.T) {
	if got := Capabilities(nil, []string{"ALL"}); len(got) != 0 {
		t.Errorf("drop ALL: %v", got)
	}
	if got, want := Capabilities([]string{"NET_BIND_SERVICE"}, []string{"ALL"}), []string{"CAP_NET_BIND_SERVICE"}; !reflect.DeepEqual(got, want) {
		t.Errorf("drop ALL, add NET_BIND_SERVICE: %v", got)
	}
	def := Capabilities(nil, nil)
	if len(def) != len(DefaultCapabilities) {
		t.Errorf("default set: %v", def)
	}
	for _, c := range def {
		if c == "CAP_SYS_ADMIN" || c == "CAP_NET_ADMIN" {
			t.Errorf("default set holds %s", c)
		}
	}
	if got := Capabilities([]string{"SYS_ADMIN"}, []string{"CHOWN"}); contains(got, "CAP_CHOWN") || !contains(got, "CAP_SYS_ADMIN") {
		t.Errorf("add SYS_ADMIN drop CHOWN: %v", got)
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestSortMounts(t *testing.T) {
	ms := []Mount{{Target: "/a/b/c"}, {Target: "/a"}, {Target: "/x/y"}, {Target: "/a/b"}}
	sortMounts(ms)
	var got []string
	for _, m := range ms {
		got = append(got, m.Target)
	}
	if want := []string{"/a", "/x/y", "/a/b", "/a/b/c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
