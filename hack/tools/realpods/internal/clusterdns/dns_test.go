package clusterdns

import (
	"net"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// fakeRecords is an in-memory Records.
type fakeRecords struct{}

func (fakeRecords) Service(ns, name string) ([]net.IP, bool) {
	switch ns + "/" + name {
	case "team/api":
		return []net.IP{net.ParseIP("127.96.4.5")}, true
	case "team/headless":
		return []net.IP{net.ParseIP("127.16.0.11"), net.ParseIP("127.16.0.12")}, true
	case "team/empty":
		return nil, true
	}
	return nil, false
}

func (fakeRecords) PodHost(ns, sub, host string) (net.IP, bool) {
	if ns == "team" && sub == "workers" && host == "w-0" {
		return net.ParseIP("127.16.0.20"), true
	}
	return nil, false
}

func query(t *testing.T, name string, typ dnsmessage.Type) dnsmessage.Message {
	t.Helper()
	q := dnsmessage.Message{Header: dnsmessage.Header{ID: 7, RecursionDesired: true},
		Questions: []dnsmessage.Question{{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}}}
	b, err := q.Pack()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Answer(b, "cluster.local", fakeRecords{})
	if err != nil {
		t.Fatal(err)
	}
	var m dnsmessage.Message
	if err := m.Unpack(out); err != nil {
		t.Fatal(err)
	}
	if m.Header.ID != 7 || !m.Header.Response {
		t.Fatalf("header %+v", m.Header)
	}
	return m
}

func addrs(m dnsmessage.Message) []string {
	var out []string
	for _, a := range m.Answers {
		if r, ok := a.Body.(*dnsmessage.AResource); ok {
			out = append(out, net.IP(r.A[:]).String())
		}
	}
	return out
}

func TestAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		typ   dnsmessage.Type
		rcode dnsmessage.RCode
		want  []string
	}{
		{"api.team.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"127.96.4.5"}},
		{"API.Team.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"127.96.4.5"}},
		{"api.team.svc.cluster.local.", dnsmessage.TypeAAAA, dnsmessage.RCodeSuccess, nil},
		{"headless.team.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"127.16.0.11", "127.16.0.12"}},
		{"empty.team.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, nil},
		{"w-0.workers.team.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"127.16.0.20"}},
		{"127-16-0-9.team.pod.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, []string{"127.16.0.9"}},
		{"nope.team.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeNameError, nil},
		{"api.team.svc.cluster.local.team.svc.cluster.local.", dnsmessage.TypeA, dnsmessage.RCodeNameError, nil},
		{"example.com.", dnsmessage.TypeA, dnsmessage.RCodeNameError, nil},
		{"api.", dnsmessage.TypeA, dnsmessage.RCodeNameError, nil},
	} {
		m := query(t, tc.name, tc.typ)
		got := addrs(m)
		if m.Header.RCode != tc.rcode || len(got) != len(tc.want) {
			t.Errorf("%s %v: rcode %v answers %v, want %v %v", tc.name, tc.typ, m.Header.RCode, got, tc.rcode, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: answers %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}
