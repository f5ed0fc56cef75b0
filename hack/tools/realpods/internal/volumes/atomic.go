package volumes

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// dataDir is the kubelet's atomic writer's link to the current payload.
const dataDir = "..data"

// WriteAtomic writes payload into dir as the kubelet's atomic writer does: the files in a new
// timestamped directory, "..data" pointing to it, and one symlink per top-level path through
// "..data", so a reader never sees half of an update. Returns whether anything changed.
func WriteAtomic(dir string, payload Payload) (bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	if same(dir, payload) {
		return false, nil
	}
	ts, err := os.MkdirTemp(dir, ".."+time.Now().UTC().Format("2006_01_02_15_04_05."))
	if err != nil {
		return false, err
	}
	if err := os.Chmod(ts, 0o755); err != nil {
		return false, err
	}
	for _, p := range payload.sortedPaths() {
		f := payload[p]
		full := filepath.Join(ts, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return false, err
		}
		if err := os.WriteFile(full, f.Data, f.Mode); err != nil {
			return false, err
		}
		if err := os.Chmod(full, f.Mode); err != nil { // WriteFile's mode is subject to the umask
			return false, err
		}
	}
	old, _ := os.Readlink(filepath.Join(dir, dataDir))
	tmpLink := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmpLink)
	if err := os.Symlink(filepath.Base(ts), tmpLink); err != nil {
		return false, err
	}
	if err := os.Rename(tmpLink, filepath.Join(dir, dataDir)); err != nil {
		return false, err
	}
	// Top-level links: add the new, drop the stale.
	want := map[string]bool{}
	for p := range payload {
		want[strings.SplitN(p, "/", 2)[0]] = true
	}
	for top := range want {
		link := filepath.Join(dir, top)
		target := filepath.Join(dataDir, top)
		if cur, err := os.Readlink(link); err == nil && cur == target {
			continue
		}
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			return false, err
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "..") {
			continue
		}
		if !want[n] {
			_ = os.RemoveAll(filepath.Join(dir, n))
		}
	}
	if old != "" && old != filepath.Base(ts) {
		_ = os.RemoveAll(filepath.Join(dir, old))
	}
	if err := os.WriteFile(filepath.Join(dir, hashFile), []byte(payload.hash()), 0o600); err != nil {
		return false, err
	}
	return true, nil
}

// hashFile records the payload a directory holds, so an unchanged payload is not rewritten.
const hashFile = "..payload"

func (p Payload) hash() string {
	h := sha256.New()
	for _, k := range p.sortedPaths() {
		fmt.Fprintf(h, "%q %o %d\n", k, p[k].Mode, len(p[k].Data))
		h.Write(p[k].Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// same reports whether dir already holds exactly payload.
func same(dir string, payload Payload) bool {
	b, err := os.ReadFile(filepath.Join(dir, hashFile))
	return err == nil && string(b) == payload.hash()
}
