// Package sandbox starts one container: the agent runs `realpods-agent container-init` in new
// mount, PID, UTS and IPC namespaces and in the pod's network namespace; container-init builds the
// container's root (a tmpfs holding read-only binds of the host's directories, private /tmp and
// /run, the pod's volumes at their mountPath, the pod's resolv.conf and hosts), pivots into it,
// drops privileges as the securityContext says, and execs the program, which is then PID 1 of its
// PID namespace: when it exits the kernel kills whatever it left behind.
package sandbox

import (
	"encoding/json"
	"os"
)

// Mount binds Source (a host path) at Target (a path in the container).
type Mount struct {
	Source   string `json:"source"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"readOnly,omitempty"`
}

// Spec is what container-init needs, written by the agent as JSON.
type Spec struct {
	// Root is an empty host directory where the container's root tmpfs is mounted (inside the
	// container's own mount namespace only).
	Root     string  `json:"root"`
	Hostname string  `json:"hostname"`
	Mounts   []Mount `json:"mounts,omitempty"`
	// ReadOnlyRoot makes the root read-only once the mounts are made (readOnlyRootFilesystem).
	ReadOnlyRoot bool     `json:"readOnlyRoot,omitempty"`
	UID          uint32   `json:"uid"`
	GID          uint32   `json:"gid"`
	Groups       []uint32 `json:"groups,omitempty"`
	WorkingDir   string   `json:"workingDir,omitempty"`
	// Program is the path (in the container) of the file to exec; empty: Argv[0], looked up in
	// the container's PATH when bare.
	Program string   `json:"program,omitempty"`
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	// Capabilities is the bounding set kept (names such as CAP_CHOWN); every other capability is
	// dropped before the exec.
	Capabilities []string `json:"capabilities"`
	NoNewPrivs   bool     `json:"noNewPrivs,omitempty"`
}

// ProgramPath is where the agent binds an image table's host binary in the container: the
// program runs from there, so its host path may be anywhere, even under the host's /tmp (which the
// container does not see: its /tmp is its own) or below directories the container's user may not
// traverse.
const ProgramPath = "/.realpods-program"

// Write stores the spec at path.
func (s *Spec) Write(path string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// Read loads a spec.
func Read(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Spec
	return &s, json.Unmarshal(b, &s)
}

// DefaultCapabilities is the container runtimes' default bounding set (containerd, CRI-O).
var DefaultCapabilities = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
	"CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
	"CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE",
}

// Capabilities applies a securityContext's drop and add lists to the default set.
func Capabilities(add, drop []string) []string {
	set := map[string]bool{}
	for _, c := range DefaultCapabilities {
		set[c] = true
	}
	for _, d := range drop {
		if d == "ALL" {
			set = map[string]bool{}
			continue
		}
		delete(set, capName(d))
	}
	for _, a := range add {
		if a == "ALL" {
			for n := range capNumbers {
				set[n] = true
			}
			continue
		}
		if _, ok := capNumbers[capName(a)]; ok {
			set[capName(a)] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range capNumbers {
		if set[n] {
			out = append(out, n)
		}
	}
	sortStrings(out)
	return out
}

func capName(s string) string {
	if len(s) > 4 && s[:4] == "CAP_" {
		return s
	}
	return "CAP_" + s
}
