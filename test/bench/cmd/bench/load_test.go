package main

import (
	"context"
	"sync/atomic"
	"testing"
)

func TestParallel(t *testing.T) {
	var n atomic.Int64
	seen := make([]atomic.Bool, 50)
	err := parallel(context.Background(), len(seen), 4, func(i int) error {
		n.Add(1)
		seen[i].Store(true)
		return nil
	})
	if err != nil || n.Load() != 50 {
		t.Fatalf("got %d calls, error %v; want 50, nil", n.Load(), err)
	}
	for i := range seen {
		if !seen[i].Load() {
			t.Errorf("job %d did not run", i)
		}
	}
}
