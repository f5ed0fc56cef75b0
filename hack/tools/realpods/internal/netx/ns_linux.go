// Package netx holds the network namespaces of one agent: a "hub" namespace with a bridge that
// every pod's namespace joins through a veth pair, all with addresses in the instance's loopback
// ranges and nothing else. The host's own namespace is never changed: no interface, route or
// sysctl of the host is touched, and the namespaces (held by file descriptors of the agent and
// the pods' processes) vanish with them.
package netx

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// NS is a network namespace held open by a file descriptor.
type NS struct{ fd int }

var host NS

func init() {
	// The process starts in the host's namespace; keep a handle to come back to it.
	fd, err := unix.Open("/proc/self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		host = NS{fd: fd}
	}
}

// Host is the agent's own (the host's) namespace.
func Host() NS { return host }

// Fd is the descriptor.
func (n NS) Fd() int { return n.fd }

// Path is the namespace's path through /proc (for nsenter and ip).
func (n NS) Path() string { return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), n.fd) }

// NewNS makes a new, empty network namespace.
func NewNS() (NS, error) {
	var out NS
	err := onLockedThread(func() (keep bool, err error) {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return true, fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return false, err
		}
		out = NS{fd: fd}
		return false, nil
	})
	return out, err
}

// Close releases the descriptor (the namespace goes once no process is left in it either).
func (n NS) Close() error { return unix.Close(n.fd) }

// Do runs f on an OS thread inside the namespace: sockets f creates belong to it.
func (n NS) Do(f func() error) error {
	var ferr error
	err := onLockedThread(func() (bool, error) {
		if err := unix.Setns(n.fd, unix.CLONE_NEWNET); err != nil {
			return true, fmt.Errorf("setns: %w", err)
		}
		ferr = f()
		return false, nil
	})
	if err != nil {
		return err
	}
	return ferr
}

// onLockedThread runs f on a thread of its own and moves that thread back to the host's
// namespace afterwards; if that fails the thread is thrown away (never reused in the wrong
// namespace).
func onLockedThread(f func() (bool, error)) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		_, err := f()
		if serr := unix.Setns(host.fd, unix.CLONE_NEWNET); serr != nil {
			done <- fmt.Errorf("return to the host namespace: %w", serr)
			return // the goroutine ends locked: Go ends the thread
		}
		runtime.UnlockOSThread()
		done <- err
	}()
	return <-done
}

// Spawner starts processes inside namespaces from one dedicated OS thread that never exits, so
// that the children's parent-death signal (which fires when the thread that forked them ends)
// fires only when the agent itself goes.
type Spawner struct{ reqs chan spawnReq }

type spawnReq struct {
	ns    NS
	start func() error
	done  chan error
}

// NewSpawner starts the spawner thread.
func NewSpawner() *Spawner {
	s := &Spawner{reqs: make(chan spawnReq)}
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: this thread lives as long as the agent
		close(ready)
		for r := range s.reqs {
			if err := unix.Setns(r.ns.fd, unix.CLONE_NEWNET); err != nil {
				r.done <- fmt.Errorf("setns: %w", err)
				continue
			}
			err := r.start()
			if serr := unix.Setns(host.fd, unix.CLONE_NEWNET); serr != nil {
				panic(fmt.Sprintf("spawner cannot return to the host network namespace: %v", serr))
			}
			r.done <- err
		}
	}()
	<-ready
	return s
}

// Start runs start (which forks, e.g. exec.Cmd.Start) with the thread in namespace ns: the
// child is born inside it.
func (s *Spawner) Start(ns NS, start func() error) error {
	done := make(chan error, 1)
	s.reqs <- spawnReq{ns: ns, start: start, done: done}
	return <-done
}
