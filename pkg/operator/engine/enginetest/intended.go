package enginetest

import (
	"fmt"
	"strings"
	"testing"
)

// GoldenCase is what an operand's golden test found in one case: the differences between its
// rendering and upstream's objects, the objects of either side, and how the operand's list of
// intended differences applies to them.
type GoldenCase[D fmt.Stringer] struct {
	Diffs []D
	// Objects are the keys of every object of either side (kind/name, or the operand's own).
	Objects []string
	// Listed returns the index of the intended difference d is, and the key of its object; -1
	// when d is not listed.
	Listed func(d D) (int, string)
	// Applies says whether intended difference i applies to an object of this case: its object
	// shape and its spec condition hold, so the difference must occur there.
	Applies func(i int, object string) bool
}

// CheckIntendedDifferences compares an operand's rendering with upstream's golden objects case by
// case. Intended differences are keyed by what causes them (an object's shape, a condition on
// the CR), never by a case's name, so any CR of the same shape, under any name, is judged
// alike. Fails on a difference that is not listed; on a listed difference missing from an object
// it applies to (so a listed difference cannot hide a real one where it was never meant to
// apply); and on a listed difference that applies to no object of any case (it is never
// tested). describe names a listed difference in a failure.
func CheckIntendedDifferences[D fmt.Stringer](t *testing.T, cases []string, listed int,
	run func(t *testing.T, name string) GoldenCase[D], describe func(i int) string) {
	t.Helper()
	applied := make([]int, listed)
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			c := run(t, name)
			occurred := map[int]map[string]bool{}
			for _, d := range c.Diffs {
				i, object := c.Listed(d)
				if i < 0 {
					t.Errorf("unlisted difference: %s", d)
					continue
				}
				if occurred[i] == nil {
					occurred[i] = map[string]bool{}
				}
				occurred[i][object] = true
			}
			for i := 0; i < listed; i++ {
				for _, object := range c.Objects {
					if !c.Applies(i, object) {
						continue
					}
					applied[i]++
					if !occurred[i][object] {
						t.Errorf("listed difference %s applies to %s but does not occur there", describe(i), object)
					}
				}
			}
		})
	}
	for i, n := range applied {
		if n == 0 {
			t.Errorf("listed difference %s applies to no object of any golden case: it is never tested", describe(i))
		}
	}
}

// Renaming is a golden CR copied under another name (To) and into another namespace
// (ToNamespace), for a test that renders the copy and compares it with upstream's objects of the
// original.
type Renaming struct {
	From, To, FromNamespace, ToNamespace string
}

// Back names an object rendered for the copy as it would be named for the original: in every
// key and string, To becomes From and ToNamespace becomes FromNamespace. To and ToNamespace
// must be strings that nothing but the copy's name and namespace can produce.
func (r Renaming) Back(obj map[string]interface{}) map[string]interface{} {
	replace := strings.NewReplacer(r.To, r.From, r.ToNamespace, r.FromNamespace)
	var walk func(v interface{}) interface{}
	walk = func(v interface{}) interface{} {
		switch n := v.(type) {
		case map[string]interface{}:
			out := make(map[string]interface{}, len(n))
			for k, e := range n {
				out[replace.Replace(k)] = walk(e)
			}
			return out
		case []interface{}:
			out := make([]interface{}, len(n))
			for i, e := range n {
				out[i] = walk(e)
			}
			return out
		case string:
			return replace.Replace(n)
		default:
			return v
		}
	}
	return walk(obj).(map[string]interface{})
}
