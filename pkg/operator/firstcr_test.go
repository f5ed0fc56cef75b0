package operator

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/llm-infra/llm-infra-operator/pkg/operator/engine"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
)

// fakeGate is an informer of CR metadata over a fake watch the test feeds.
func fakeGate(existing ...string) (cache.SharedIndexInformer, *watch.RaceFreeFakeWatcher) {
	w := watch.NewRaceFreeFake()
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	for _, name := range existing {
		list.Items = append(list.Items, *cr(name))
	}
	lw := &cache.ListWatch{
		ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return list, nil },
		WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	// The fake watch sends no bookmark: list, then watch, as client-go's fake clients do.
	return cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, listThenWatch{}),
		&metav1.PartialObjectMetadata{}, 0, cache.Indexers{}), w
}

type listThenWatch struct{}

func (listThenWatch) IsWatchListSemanticsUnSupported() bool { return true }

func cr(name string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, ResourceVersion: "2"}}
}

func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 10*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// A kind starts when its first CR exists, once, whether that CR was there at start-up or came
// later; the gate's watch then stops.
func TestOnFirstObjectOpensOnceAndStopsTheGate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		existing []string
		added    []string
	}{
		{name: "a CR exists at start-up", existing: []string{"a", "b"}},
		{name: "the first CR comes later", added: []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			gate, w := fakeGate(tc.existing...)
			var opened atomic.Int32
			if err := onFirstObject(ctx, gate, func() { opened.Add(1) }); err != nil {
				t.Fatal(err)
			}
			if len(tc.added) > 0 {
				// Not with a CR at start-up: the gate may stop before it counts as synced.
				poll(t, "the gate lists", gate.HasSynced)
				if got := opened.Load(); got != 0 {
					t.Fatalf("opened %d times before any CR exists", got)
				}
				for _, name := range tc.added {
					w.Add(cr(name))
				}
			}
			poll(t, "the kind starts", func() bool { return opened.Load() > 0 })
			poll(t, "the gate stops", gate.IsStopped)
			if got := opened.Load(); got != 1 {
				t.Errorf("opened %d times, want once", got)
			}
		})
	}
}

// fakeController records that it ran.
type fakeController struct {
	factory.Controller
	ran chan struct{}
}

func (c *fakeController) Run(context.Context, int) { close(c.ran) }

func TestKindStarterStartsAKindOnceItsCachesSynced(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "issuers.cert-manager.io"}}
	apiext := apiextfake.NewSimpleClientset(crd)
	shared := engine.NewCRDWatch(apiext, crd.Name, 0, engine.DropCRDSchemas)
	var factoryStarts atomic.Int32
	newStarter := func(ctx context.Context, build func(registry.Registration) (*registry.Started, error)) *kindStarter {
		return &kindStarter{
			ctx:   ctx,
			build: build,
			factories: []informerFactory{{
				name:  "managed",
				start: func(<-chan struct{}) { factoryStarts.Add(1) },
				wait:  func(<-chan struct{}) map[string]bool { return map[string]bool{"Deployment": true} },
			}},
			crdWatches: func(registry.Registration) []*engine.CRDWatch { return []*engine.CRDWatch{shared} },
			running:    map[*engine.CRDWatch]bool{},
			failed:     make(chan error, 2),
		}
	}
	gvk := schema.GroupVersionKind{Group: "core.inference-gateway.com", Version: "v1alpha1"}
	gateway, mcp := registry.Registration{Operand: "gateway", GVK: gvk}, registry.Registration{Operand: "mcp", GVK: gvk}
	gateway.GVK.Kind, mcp.GVK.Kind = "Gateway", "MCP"

	t.Run("two kinds share a CRD watch", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var mu sync.Mutex
		controllers := map[string]*fakeController{}
		s := newStarter(ctx, func(r registry.Registration) (*registry.Started, error) {
			c := &fakeController{ran: make(chan struct{})}
			mu.Lock()
			controllers[r.Operand] = c
			mu.Unlock()
			return &registry.Started{Controllers: []registry.Controller{{Controller: c, Workers: 1}}}, nil
		})
		var wg sync.WaitGroup
		for _, r := range []registry.Registration{gateway, mcp} {
			wg.Add(1)
			go func() { defer wg.Done(); s.start(r) }()
		}
		wg.Wait()
		for operand, c := range controllers {
			select {
			case <-c.ran:
			case <-time.After(10 * time.Second):
				t.Errorf("the %s controller did not run", operand)
			}
		}
		if len(controllers) != 2 {
			t.Errorf("built %d kinds, want 2", len(controllers))
		}
		if !shared.Informer.HasSynced() || shared.Get() == nil {
			t.Errorf("the CRD watch did not sync before the controllers ran")
		}
		if len(s.running) != 1 {
			t.Errorf("CRD watches run: %d, want the one shared", len(s.running))
		}
		if got := factoryStarts.Load(); got != 2 {
			t.Errorf("the factories were started %d times, want once per kind", got)
		}
		select {
		case err := <-s.failed:
			t.Errorf("a kind failed: %v", err)
		default:
		}
	})

	t.Run("a kind that cannot be built ends the operator", func(t *testing.T) {
		s := newStarter(context.Background(), func(registry.Registration) (*registry.Started, error) {
			return nil, errors.New("no informer of gateways")
		})
		s.start(gateway)
		select {
		case err := <-s.failed:
			if !strings.Contains(err.Error(), "Gateway: no informer of gateways") {
				t.Errorf("error = %v, want it to name the kind and the cause", err)
			}
		default:
			t.Errorf("no error reached the operator")
		}
	})
}
