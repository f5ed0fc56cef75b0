package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/llm-infra/llm-infra-operator/test/internal/live"
)

// loadLabel marks the namespaces of unrelated objects the bench creates; its value is the
// load's prefix.
const loadLabel = "bench.llm-infra.io/load"

// objectLoad is a set of objects the operator has nothing to do with, created to see that its
// memory and requests do not grow with them: ConfigMaps and Secrets spread over namespaces
// <prefix>-<i>.
type objectLoad struct {
	prefix              string
	namespaces          int
	configMaps, secrets int
}

func (l objectLoad) namespace(i int) string { return fmt.Sprintf("%s-%d", l.prefix, i%l.namespaces) }

// selector selects the load's namespaces.
func (l objectLoad) selector() string { return loadLabel + "=" + l.prefix }

// parallel runs do(0), ..., do(n-1) with at most conc calls in flight, and returns the first
// error (the others still run).
func parallel(ctx context.Context, n, conc int, do func(i int) error) error {
	jobs := make(chan int)
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for w := 0; w < max(1, conc); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := do(i); err != nil {
					errOnce.Do(func() { firstErr = err })
				}
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// createLoad creates the load's namespaces and objects, ConfigMaps and Secrets interleaved,
// with at most b.loadConc requests in flight; it returns how many objects exist afterwards.
func (b *bench) createLoad(ctx context.Context, l objectLoad) (int, error) {
	if l.namespaces < 1 {
		l.namespaces = 1
	}
	for i := 0; i < l.namespaces; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: l.namespace(i), Labels: map[string]string{loadLabel: l.prefix}}}
		if _, err := b.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return 0, err
		}
	}
	payload := strings.Repeat("x", 64)
	var created atomic.Int64
	// Job j is ConfigMap j/2 (even j) or Secret j/2 (odd j), in namespace j mod namespaces.
	err := parallel(ctx, 2*max(l.configMaps, l.secrets), b.loadConc, func(j int) error {
		ns, name := l.namespace(j), fmt.Sprintf("load-%05d", j/2)
		var err error
		switch {
		case j%2 == 0 && j/2 < l.configMaps:
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string]string{"k": payload}}
			_, err = b.kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		case j%2 == 1 && j/2 < l.secrets:
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string][]byte{"k": []byte(payload)}}
			_, err = b.kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{})
		default:
			return nil
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating load objects: %w", err)
		}
		created.Add(1)
		return nil
	})
	return int(created.Load()), err
}

// deleteNamespaces deletes the namespaces selector selects and waits (bounded) until they are
// gone. It runs on its own context: it is cleanup, also after an interrupt.
func (b *bench) deleteNamespaces(selector string) {
	ctx := context.Background()
	list, err := b.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		logf("listing namespaces %s: %v", selector, err)
		return
	}
	logf("deleting the %d namespaces %s", len(list.Items), selector)
	for _, ns := range list.Items {
		_ = b.kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
	}
	err = live.Poll(ctx, time.Second, 10*time.Minute, func() (bool, error) {
		list, err := b.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, nil
		}
		return len(list.Items) == 0, nil
	})
	if err != nil {
		logf("namespaces %s not gone: %v", selector, err)
	}
}
