package runtime

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
)

// IPAM hands out pod addresses from the instance's pod range, next-fit (a freed address is
// reused only after the rest of the range), skipping the range's first ten addresses (the
// gateway and node live there) and its broadcast address.
type IPAM struct {
	mu    sync.Mutex
	base  uint32
	size  uint32
	next  uint32
	inUse map[uint32]bool
}

// NewIPAM covers an IPv4 range.
func NewIPAM(n *net.IPNet) *IPAM {
	ones, bits := n.Mask.Size()
	return &IPAM{
		base:  binary.BigEndian.Uint32(n.IP.To4()),
		size:  uint32(1) << uint(bits-ones),
		next:  10,
		inUse: map[uint32]bool{},
	}
}

// Allocate returns a free address.
func (a *IPAM) Allocate() (net.IP, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := uint32(0); i < a.size; i++ {
		off := a.next
		a.next++
		if a.next >= a.size-1 {
			a.next = 10
		}
		if off < 10 || off >= a.size-1 || a.inUse[off] {
			continue
		}
		a.inUse[off] = true
		ip := make(net.IP, 4)
		binary.BigEndian.PutUint32(ip, a.base+off)
		return ip, nil
	}
	return nil, fmt.Errorf("pod address range exhausted")
}

// Release frees an address.
func (a *IPAM) Release(ip net.IP) {
	if ip == nil || ip.To4() == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.inUse, binary.BigEndian.Uint32(ip.To4())-a.base)
}
