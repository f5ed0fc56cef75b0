package enginetest

import (
	"fmt"
	"testing"
)

// CheckListedDifferences compares an operand's rendering with upstream's golden objects case by
// case: every difference diff finds must be one the operand lists (match returns its index in
// the list, or -1), and every listed difference must occur in each case it names (casesOf), so
// the list stays honest. describe names a listed difference in a failure.
func CheckListedDifferences[D fmt.Stringer](t *testing.T, cases []string, listed int,
	diff func(t *testing.T, name string) []D, match func(name string, d D) int,
	casesOf func(i int) []string, describe func(i int) string) {
	t.Helper()
	occurred := make([]map[string]bool, listed)
	for i := range occurred {
		occurred[i] = map[string]bool{}
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			for _, d := range diff(t, name) {
				i := match(name, d)
				if i < 0 {
					t.Errorf("unlisted difference: %s", d)
					continue
				}
				occurred[i][name] = true
			}
		})
	}
	for i := 0; i < listed; i++ {
		for _, name := range casesOf(i) {
			if !occurred[i][name] {
				t.Errorf("listed difference %s does not occur in case %s", describe(i), name)
			}
		}
	}
}
