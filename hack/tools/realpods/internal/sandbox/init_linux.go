package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// privateDirs are the root's own directories (the container's writable layer) instead of binds
// of the host's: the pod gets an empty /tmp and /run as from an image.
var privateDirs = map[string]os.FileMode{"tmp": 0o777 | os.ModeSticky, "run": 0o755}

// skipped top-level entries of the host root: made afresh (proc, sys, dev) or of no use.
var skipped = map[string]bool{"proc": true, "sys": true, "dev": true, "lost+found": true}

const oldRoot = "/.realpods-host"

// Init is container-init: it never returns on success (the exec replaces it). A failure before
// the exec is written to errFile (the agent's pipe) and the process exits with code 128.
func Init(specPath string, errFile *os.File) {
	runtime.LockOSThread() // the capability bounding set, no_new_privs and pdeathsig are per thread
	spec, err := Read(specPath)
	if err == nil {
		err = setup(spec)
	}
	if err == nil {
		err = execProgram(spec)
	}
	fmt.Fprintf(errFile, "%v", err)
	fmt.Fprintf(os.Stderr, "realpods: container start failed: %v\n", err)
	os.Exit(128)
}

func setup(s *Spec) error {
	// Nothing mounted from here on may reach the host's mount namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	root := s.Root
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=512m"); err != nil {
		return fmt.Errorf("mount root tmpfs on %s: %w", root, err)
	}
	entries, err := os.ReadDir("/")
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		dst := filepath.Join(root, name)
		if mode, ok := privateDirs[name]; ok {
			if err := os.Mkdir(dst, mode); err != nil {
				return err
			}
			if err := os.Chmod(dst, mode); err != nil {
				return err
			}
			continue
		}
		if skipped[name] {
			continue
		}
		if err := bindHostEntry("/"+name, dst); err != nil {
			return err
		}
	}
	// The root's own mount point shows up again inside the bind of its parent: take it away.
	_ = unix.Unmount(filepath.Join(root, root), unix.MNT_DETACH)
	for _, d := range []string{"proc", "sys", "dev", oldRoot[1:]} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	for _, d := range []string{"sys", "dev"} {
		if err := bindReadOnly("/"+d, filepath.Join(root, d), true); err != nil {
			return err
		}
	}
	// A private /dev/shm (the host's is shared by everyone).
	if err := unix.Mount("shm", filepath.Join(root, "dev/shm"), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=1777,size=64m"); err != nil {
		return fmt.Errorf("mount /dev/shm: %w", err)
	}
	if err := unix.PivotRoot(root, filepath.Join(root, oldRoot)); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Chdir("/"); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	m := &mounter{}
	mounts := append([]Mount(nil), s.Mounts...)
	// Parents before children, so a mount inside another volume lands on top of it.
	sortMounts(mounts)
	for _, mt := range mounts {
		if err := m.bind(mt); err != nil {
			return err
		}
	}
	if err := unix.Unmount(oldRoot, unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detach the host root: %w", err)
	}
	_ = os.Remove(oldRoot)
	for _, d := range m.mirrors {
		if err := setReadOnly(d, false); err != nil {
			return err
		}
	}
	if s.ReadOnlyRoot {
		if err := setReadOnly("/", false); err != nil {
			return err
		}
	}
	if s.Hostname != "" {
		if err := unix.Sethostname([]byte(s.Hostname)); err != nil {
			return fmt.Errorf("sethostname: %w", err)
		}
	}
	wd := s.WorkingDir
	if wd == "" {
		wd = "/"
	}
	if _, err := os.Stat(wd); os.IsNotExist(err) {
		_ = os.MkdirAll(wd, 0o755)
	}
	if err := unix.Chdir(wd); err != nil {
		return fmt.Errorf("workingDir %s: %w", wd, err)
	}
	return nil
}

// bindHostEntry reproduces one entry of the host's root in the container's: a directory or
// file as a read-only bind, a symlink as itself.
func bindHostEntry(src, dst string) error {
	info, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case info.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case info.IsDir():
		if err := os.Mkdir(dst, info.Mode().Perm()); err != nil {
			return err
		}
	default:
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	}
	return bindReadOnly(src, dst, true)
}

func bindReadOnly(src, dst string, recursive bool) error {
	flags := uintptr(unix.MS_BIND)
	if recursive {
		flags |= unix.MS_REC
	}
	if err := unix.Mount(src, dst, "", flags, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	return setReadOnly(dst, recursive)
}

func setReadOnly(path string, recursive bool) error {
	var flags uint
	if recursive {
		flags = unix.AT_RECURSIVE
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, path, flags, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return nil
}

func sortMounts(ms []Mount) {
	depth := func(p string) int { return strings.Count(filepath.Clean(p), "/") }
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && depth(ms[j].Target) < depth(ms[j-1].Target); j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// mounter makes mount points inside the container's root, which holds read-only binds of host
// directories: a mount point that would have to be created inside one of those gets the directory
// "mirrored" first (a tmpfs holding binds of each of its entries, stacked on top), so nothing is
// ever created on the host.
type mounter struct {
	mirrors []string
	n       int
}

func (m *mounter) bind(mt Mount) error {
	src := filepath.Join(oldRoot, mt.Source)
	info, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("volume source %s: %w", mt.Source, err)
	}
	if err := m.ensure(mt.Target, info.IsDir()); err != nil {
		return fmt.Errorf("mount point %s: %w", mt.Target, err)
	}
	if err := unix.Mount(src, mt.Target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind %s at %s: %w", mt.Source, mt.Target, err)
	}
	if mt.ReadOnly {
		return setReadOnly(mt.Target, true)
	}
	return nil
}

func (m *mounter) ensure(target string, dir bool) error {
	for attempt := 0; attempt < 16; attempt++ {
		err := create(target, dir)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EROFS) {
			return err
		}
		if err := m.mirror(existingAncestor(filepath.Dir(target))); err != nil {
			return err
		}
	}
	return fmt.Errorf("cannot create %s", target)
}

func create(target string, dir bool) error {
	if info, err := os.Stat(target); err == nil {
		if info.IsDir() != dir {
			return fmt.Errorf("%s exists and is %s a directory", target, map[bool]string{true: "", false: "not"}[info.IsDir()])
		}
		return nil
	}
	if dir {
		return os.MkdirAll(target, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

func existingAncestor(p string) string {
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		if p == "/" {
			return "/"
		}
		p = filepath.Dir(p)
	}
}

func (m *mounter) mirror(dir string) error {
	m.n++
	stage := "/.realpods-mirror-" + strconv.Itoa(m.n)
	if err := os.Mkdir(stage, 0o755); err != nil {
		return fmt.Errorf("mirror %s: %w", dir, err)
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", stage, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode="+strconv.FormatUint(uint64(info.Mode().Perm()), 8)+",size=16m"); err != nil {
		return fmt.Errorf("mirror %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := bindHostEntry(filepath.Join(dir, e.Name()), filepath.Join(stage, e.Name())); err != nil {
			return fmt.Errorf("mirror %s: %w", dir, err)
		}
	}
	if err := unix.Mount(stage, dir, "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("mirror %s: %w", dir, err)
	}
	_ = os.Remove(stage)
	m.mirrors = append(m.mirrors, dir)
	return nil
}

func execProgram(s *Spec) error {
	if len(s.Argv) == 0 {
		return errors.New("no command")
	}
	path := s.Program
	if path == "" {
		var err error
		if path, err = lookPath(s.Argv[0], s.Env); err != nil {
			return err
		}
	}
	keep := map[int]bool{}
	for _, c := range s.Capabilities {
		if n, ok := capNumbers[c]; ok {
			keep[n] = true
		}
	}
	for n := 0; n <= 63; n++ {
		if keep[n] {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(n), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", n, err)
		}
	}
	groups := make([]int, 0, len(s.Groups))
	for _, g := range s.Groups {
		groups = append(groups, int(g))
	}
	if err := syscall.Setgroups(groups); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setgid(int(s.GID)); err != nil {
		return fmt.Errorf("setgid %d: %w", s.GID, err)
	}
	if err := syscall.Setuid(int(s.UID)); err != nil {
		return fmt.Errorf("setuid %d: %w", s.UID, err)
	}
	if s.NoNewPrivs {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("no_new_privs: %w", err)
		}
	}
	// A change of credentials clears the parent-death signal: set it again, so the program dies
	// with the agent.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("pdeathsig: %w", err)
	}
	if err := syscall.Exec(path, s.Argv, s.Env); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}

// lookPath finds a bare program name in the container's PATH, as the runtime does.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("exec: %q: %w", name, err)
		}
		return name, nil
	}
	pathEnv := "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: executable file not found in $PATH", name)
}
