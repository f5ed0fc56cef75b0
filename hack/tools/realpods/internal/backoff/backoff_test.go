package backoff

import (
	"testing"
	"time"
)

func TestNext(t *testing.T) {
	p := Policy{Initial: 10 * time.Second, Max: 40 * time.Second, Reset: 10 * time.Minute}
	var s State
	var got []time.Duration
	for i := 0; i < 6; i++ {
		got = append(got, s.Next(p, time.Second))
	}
	want := []time.Duration{0, 10 * time.Second, 20 * time.Second, 40 * time.Second, 40 * time.Second, 40 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("delays %v, want %v", got, want)
		}
	}
	if d := s.Next(p, 11*time.Minute); d != 0 {
		t.Errorf("after running past Reset the delay is %v, want 0 (start over)", d)
	}
	if d := s.Next(p, time.Second); d != 10*time.Second {
		t.Errorf("next after the reset %v, want 10s", d)
	}
}
