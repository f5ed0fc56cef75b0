package nsalloc

import (
	"fmt"
	"strings"
)

// mcsCategories is SELinux's number of categories, c0 to c1023.
const mcsCategories = 1024

// mcsLabel is the SELinux level of the offset-th namespace of an MCS range "<prefix>/<k>", as
// cluster-policy-controller allocates it (its DefaultMCSAllocation: the UID block's offset in the
// UID range times the labels per project, then that offset's label). OpenShift's labels are the
// k-subsets of the categories in co-lexicographic order, written highest category first:
// offsets 0, 1, 2, 3 of s0:/2 are s0:c1,c0, s0:c2,c0, s0:c2,c1, s0:c3,c0.
//
// Written here because neither module with OpenShift's code for it can be a dependency:
// library-go has pkg/security/uid but no mcs, and the module proxy refuses
// github.com/openshift/cluster-policy-controller (whose pkg/security/mcs it is).
func mcsLabel(prefix string, k int, offset uint64) string {
	categories := make([]string, 0, k)
	n := uint64(mcsCategories)
	// Co-lex unranking: the highest category c is the largest with C(c, k) <= offset, then the
	// rest of the offset ranks the remaining k-1 categories below it.
	for i := k; i > 0; i-- {
		c := n - 1
		for binomial(c, uint64(i)) > offset {
			c--
		}
		categories = append(categories, fmt.Sprintf("c%d", c))
		offset -= binomial(c, uint64(i))
		n = c
	}
	if prefix != "" && !strings.HasSuffix(prefix, ":") {
		prefix += ":"
	}
	return prefix + strings.Join(categories, ",")
}

// mcsRangeSize is how many labels an MCS range of k categories holds: C(1024, k).
func mcsRangeSize(k int) uint64 { return binomial(mcsCategories, uint64(k)) }

func binomial(n, k uint64) uint64 {
	if n < k {
		return 0
	}
	r := uint64(1)
	for d := uint64(1); d <= k; d++ {
		r = r * (n - d + 1) / d
	}
	return r
}

// parseMCSRange reads "<prefix>/<k>", OpenShift's form of an MCS range (its default s0:/2).
func parseMCSRange(in string) (prefix string, k int, err error) {
	prefix, ks, ok := strings.Cut(in, "/")
	if !ok {
		return "", 0, fmt.Errorf("MCS range %q is not <prefix>/<labels>", in)
	}
	if _, err := fmt.Sscanf(ks, "%d", &k); err != nil || k < 1 || k > 5 {
		return "", 0, fmt.Errorf("MCS range %q: the number of labels must be 1 to 5", in)
	}
	return prefix, k, nil
}
