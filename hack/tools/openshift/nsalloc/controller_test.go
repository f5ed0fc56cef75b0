package nsalloc

import (
	"context"
	"testing"

	securityv1 "github.com/openshift/api/security/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

func TestMCSLabel(t *testing.T) {
	// Offsets of s0:/2 in co-lex order, and the offsets OpenShift gives the first namespaces
	// (block offset times 5 labels per project).
	for _, tc := range []struct {
		offset uint64
		want   string
	}{
		{0, "s0:c1,c0"},
		{1, "s0:c2,c0"},
		{2, "s0:c2,c1"},
		{3, "s0:c3,c0"},
		{5, "s0:c3,c2"},
		{10, "s0:c5,c0"},
		{15, "s0:c6,c0"},
		{mcsRangeSize(2) - 1, "s0:c1023,c1022"},
	} {
		if got := mcsLabel("s0:", 2, tc.offset); got != tc.want {
			t.Errorf("mcsLabel(s0:, 2, %d) = %s, want %s", tc.offset, got, tc.want)
		}
	}
}

func TestParseMCSRange(t *testing.T) {
	for _, tc := range []struct {
		in     string
		prefix string
		k      int
		fails  bool
	}{
		{in: "s0:/2", prefix: "s0:", k: 2},
		{in: "s0/3", prefix: "s0", k: 3},
		{in: "s0:", fails: true},
		{in: "s0:/6", fails: true},
	} {
		prefix, k, err := parseMCSRange(tc.in)
		if (err != nil) != tc.fails || (!tc.fails && (prefix != tc.prefix || k != tc.k)) {
			t.Errorf("parseMCSRange(%q) = %q, %d, %v", tc.in, prefix, k, err)
		}
	}
}

// TestAllocation runs the controller on a fake clientset: existing blocks are kept and skipped,
// new namespaces get the lowest free ones.
func TestAllocation(t *testing.T) {
	annotated := func(name, block, mcs string) *corev1.Namespace {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{}}}
		if block != "" {
			ns.Annotations[securityv1.UIDRangeAnnotation] = block
		}
		if mcs != "" {
			ns.Annotations[securityv1.MCSAnnotation] = mcs
		}
		return ns
	}
	for _, tc := range []struct {
		name     string
		existing []*corev1.Namespace
		want     map[string][3]string // namespace: uid-range, supplemental-groups, mcs
	}{
		{
			name:     "first namespaces",
			existing: []*corev1.Namespace{annotated("a", "", "")},
			want:     map[string][3]string{"a": {"1000000000/10000", "1000000000/10000", "s0:c1,c0"}},
		},
		{
			name: "held blocks are skipped, a held MCS level kept",
			existing: []*corev1.Namespace{
				annotated("old", "1000000000/10000", "s0:c1,c0"),
				annotated("new", "", "s0:c9,c8"),
			},
			want: map[string][3]string{"new": {"1000010000/10000", "1000010000/10000", "s0:c9,c8"}},
		},
		{
			name:     "a block outside the range holds nothing",
			existing: []*corev1.Namespace{annotated("foreign", "5000/100", ""), annotated("b", "", "")},
			want:     map[string][3]string{"b": {"1000000000/10000", "1000000000/10000", "s0:c1,c0"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := fake.NewClientset()
			for _, ns := range tc.existing {
				if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			factory := informers.NewSharedInformerFactory(client, 0)
			c, err := New(factory.Core().V1().Namespaces(), client.CoreV1().Namespaces(), DefaultUIDRange, DefaultMCSRange, DefaultMCSLabelsPerProject)
			if err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			factory.WaitForCacheSync(ctx.Done())
			if err := c.repair(); err != nil {
				t.Fatal(err)
			}
			// The queue's work, driven by hand: each namespace synced once, in name order.
			for _, ns := range tc.existing {
				if err := c.sync(ctx, ns.Name); err != nil {
					t.Fatal(err)
				}
			}
			for name, want := range tc.want {
				ns, err := client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got := [3]string{ns.Annotations[securityv1.UIDRangeAnnotation], ns.Annotations[securityv1.SupplementalGroupsAnnotation], ns.Annotations[securityv1.MCSAnnotation]}
				if got != want {
					t.Errorf("%s: got %v, want %v", name, got, want)
				}
			}
		})
	}
}
