package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/netx"
)

// check tries, on a small scale, everything the agent does: root, a network namespace with a
// bridge and a veth carrying loopback addresses, and a child in new mount and PID namespaces that
// mounts a tmpfs and makes a bind read-only (mount_setattr). Nothing of it outlives the check.
func check() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("the agent must run as root (euid %d)", os.Geteuid())
	}
	for _, tool := range []string{"nsenter", "setpriv"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s (util-linux) is missing: exec probes need it", tool)
		}
	}
	_, podNet, _ := net.ParseCIDR("127.250.0.0/16")
	_, svcNet, _ := net.ParseCIDR("127.251.0.0/16")
	hub, err := netx.NewHub(net.ParseIP("127.250.0.1").To4(), podNet, svcNet)
	if err != nil {
		return fmt.Errorf("network namespaces: %w", err)
	}
	defer hub.Close()
	pod, err := netx.NewNS()
	if err != nil {
		return fmt.Errorf("network namespaces: %w", err)
	}
	defer pod.Close()
	if err := hub.AddPod(pod, "vpcheck", net.ParseIP("127.250.0.10").To4()); err != nil {
		return fmt.Errorf("veth pair with a loopback address: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "realpods-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(self, "check-sandbox", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mount and PID namespaces: %v: %s", err, out)
	}
	return nil
}

func checkSandbox() error {
	dir := os.Args[2]
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		return fmt.Errorf("tmpfs: %w", err)
	}
	sub := filepath.Join(dir, "bin")
	if err := os.Mkdir(sub, 0o755); err != nil {
		return err
	}
	if err := unix.Mount("/usr/bin", sub, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, sub, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("mount_setattr (Linux 5.12 or newer): %w", err)
	}
	if os.Getpid() != 1 {
		return fmt.Errorf("not PID 1 of a new PID namespace")
	}
	return nil
}
