package volumes

import (
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
)

// The kubelet's masks for fsGroup (pkg/volume/volume_linux.go): group read-write for writable
// volumes, group read for read-only ones, and setgid plus group search on directories, so that
// what the pod creates later belongs to the group too.
const (
	rwMask   = os.FileMode(0o660)
	roMask   = os.FileMode(0o440)
	execMask = os.FileMode(0o110)
)

// SetOwnership gives a volume to fsGroup as the kubelet does: every file and directory chowned
// to the group (the owner is left as is) and its mode widened by the masks above. With
// fsGroupChangePolicy OnRootMismatch a volume whose root already has the group and the bits is
// left alone.
func SetOwnership(dir string, fsGroup int64, readOnly bool, policy *corev1.PodFSGroupChangePolicy) error {
	if policy != nil && *policy == corev1.FSGroupChangeOnRootMismatch && rootMatches(dir, fsGroup, readOnly) {
		return nil
	}
	return filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(p, -1, int(fsGroup)); err != nil {
			return err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return nil
		}
		mask := rwMask
		if readOnly {
			mask = roMask
		}
		if info.IsDir() {
			mask |= os.ModeSetgid | execMask
		}
		return os.Chmod(p, info.Mode()|mask)
	})
}

func rootMatches(dir string, fsGroup int64, readOnly bool) bool {
	info, err := os.Stat(dir)
	if err != nil {
		return false
	}
	gid, ok := groupOf(info)
	if !ok || int64(gid) != fsGroup {
		return false
	}
	mask := rwMask | execMask
	if readOnly {
		mask = roMask | execMask
	}
	return info.Mode()&os.ModeSetgid != 0 && info.Mode().Perm()&mask == mask
}
