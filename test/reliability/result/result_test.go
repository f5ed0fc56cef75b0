package result

import (
	"reflect"
	"testing"
)

func TestWriteThenReadAllRoundTrips(t *testing.T) {
	dir := t.TempDir()
	written := []Suite{
		{Name: "b", Passed: true, Metrics: []Metric{{Name: "CRs tried", Value: 3}}},
		{Name: "a", Passed: true, Metrics: []Metric{{Name: "worst time", Value: 1.5, Unit: "s"}}},
	}
	written[0].Fail("case %d rejected without a message", 2)
	for _, s := range written {
		if err := s.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	read, err := ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Suite{written[1], written[0]}
	if !reflect.DeepEqual(read, want) {
		t.Fatalf("read %+v, want %+v", read, want)
	}
	if read[1].Passed {
		t.Fatal("a suite with a failure reads as passed")
	}
}
