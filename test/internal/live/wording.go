package live

import (
	"fmt"
	"regexp"
	"slices"
)

// The admission tables' error texts (pkg/apis/*/*/testcases, written with the helpers of
// pkg/apis/internal/admission) are the API server's of the release the operator is built against
// (go.mod's k8s.io/apiextensions-apiserver, the local cluster's newest version). An older API
// server the bundle supports (hack/lib/kube-version.sh) gives every case the same verdict, on
// the same fields, but words a few errors differently. Each difference is a row here, found by
// running the admission suite (test/reliability/admission) on that version; ForServer turns a
// table's text into that server's.

// Wording is one error that servers of some minor versions word differently.
type Wording struct {
	// Minors are the minor versions (of Kubernetes 1.x) that word it Older; each was run.
	Minors []int
	// Newer matches the text as the tables write it; Older is its replacement
	// (regexp.Expand syntax).
	Newer *regexp.Regexp
	Older string
	// Why says where the difference comes from.
	Why string
}

// Wordings are every known difference.
var Wordings = []Wording{
	{
		Minors: []int{30},
		Newer:  regexp.MustCompile(`: Too long: may not be more than (\d+) bytes$`),
		Older:  ": Too long: may not be longer than $1",
		Why:    "apiextensions-apiserver v0.30's schema validator (pkg/apiserver/validation) calls field.TooLongMaxLength, worded so; by v0.33 it calls field.TooLong, which counts bytes",
	},
	{
		// A CEL rule's error with the default reason, as admission.Invalid writes it: the
		// message follows "Invalid value: " at once. The schema validator's own Invalid errors
		// (a pattern, a minimum or maximum) print the value first, quoted or a number, and are
		// worded alike on every version, so they do not match.
		Minors: []int{30},
		Newer:  regexp.MustCompile(`^(\S+): Invalid value: ([^"0-9-].*)$`),
		Older:  `$1: Invalid value: "object": $2`,
		Why:    "up to apiextensions-apiserver v0.34 a failed x-kubernetes-validations rule's field.Invalid gets the schema's type as its value (pkg/apiserver/schema/cel/validation.go: sts.Type); from v0.35 it gets the value, which field.Error leaves out for an object or a list (every rule of the tables is on an object)",
	},
	{
		// A list-map key's duplicate (x-kubernetes-list-type: map), e.g. two env entries of one
		// name: the value is the key's fields as a map.
		Minors: []int{30},
		Newer:  regexp.MustCompile(`: Duplicate value: \{"([^"]+)":"([^"]*)"\}`),
		Older:  `: Duplicate value: map[string]interface {}{"$1":"$2"}`,
		Why:    "apimachinery v0.30's field.Error prints a value that is neither a simple type, a string nor a Stringer with %#v (pkg/util/validation/field/errors.go, ErrorBody); later releases try json.Marshal first",
	},
}

// ForServer is want, a table's error text, as an API server of Kubernetes 1.<minor> words it.
func ForServer(minor int, want string) string {
	for _, w := range Wordings {
		if slices.Contains(w.Minors, minor) {
			want = w.Newer.ReplaceAllString(want, w.Older)
		}
	}
	return want
}

// ServerMinor is the minor version of a Kubernetes 1.x API server, from its version's major and
// minor strings (discovery's version.Info; a provider may append "+").
func ServerMinor(major, minor string) (int, error) {
	var n int
	if major != "1" {
		return 0, fmt.Errorf("API server version %s.%s is not Kubernetes 1.x", major, minor)
	}
	if _, err := fmt.Sscanf(minor, "%d", &n); err != nil {
		return 0, fmt.Errorf("API server minor version %q: %w", minor, err)
	}
	return n, nil
}
