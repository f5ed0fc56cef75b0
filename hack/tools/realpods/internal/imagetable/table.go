// Package imagetable reads the image table: which container images run for real, and with which
// host program. It is the contract between the agent and whoever builds the programs (make
// fetch-operands writes ${OUTPUT_DIR}/operands/images.tsv).
//
// One row per image, tab-separated, lines starting with # are comments:
//
//	image        repository without tag or digest, e.g. ghcr.io/llm-d/llm-d-inference-sim
//	entrypoint   the absolute path the image's ENTRYPOINT runs, or -
//	binary       host path of the program that stands for that entrypoint, or -
//	env          image-level environment defaults K=V;K=V, or -
//	user         optional fifth column: the image's USER as UID or UID:GID (numeric), or -: the
//	             user a container runs as when no security context sets runAsUser (a missing
//	             column or - is root, as an image without USER)
//	workdir      optional sixth column: the image's WORKDIR (absolute), or -: where a container
//	             without workingDir runs (missing or -: /)
//	cmd          optional seventh column: the image's CMD after the program the entrypoint
//	             column names, space-separated words, or -: what a container with neither
//	             command nor args passes the binary (the kubelet's runtime runs ENTRYPOINT + CMD)
//	files        optional eighth column: a host directory holding the image's own files, or -:
//	             each entry D at its top appears read-only at /D in the container (what an image's
//	             layers add beside its program, e.g. /app/.well-known/agent-card.json)
//
// A container whose image is in the table runs for real (Resolve says how); a pod any of whose
// containers' images is not in the table is simulated.
package imagetable

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Image is one row of the table.
type Image struct {
	Repository string
	// Entrypoint is the path the image's ENTRYPOINT runs ("" for -).
	Entrypoint string
	// Binary is the host program that stands for Entrypoint ("" for -).
	Binary string
	// Env holds the image's environment defaults, in the order given.
	Env []EnvDefault
	// User and Group are the image's USER (nil for root, the default of an image without one);
	// Group is nil when the column gives only a UID.
	User, Group *int64
	// WorkDir is the image's WORKDIR ("" for -: /).
	WorkDir string
	// Cmd is the image's CMD after its program: what runs with neither command nor args.
	Cmd []string
	// Files is the host directory of the image's own files ("" for -).
	Files string
}

// EnvDefault is one K=V of the env column.
type EnvDefault struct{ Name, Value string }

// Table maps repositories to their rows.
type Table struct {
	images map[string]Image
}

// Load reads the table from a file; a missing file is an empty table (every pod is simulated).
func Load(path string) (*Table, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return &Table{images: map[string]Image{}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Parse reads the table's text.
func Parse(r io.Reader) (*Table, error) {
	t := &Table{images: map[string]Image{}}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) < 4 || len(cols) > 8 {
			return nil, fmt.Errorf("line %d: want 4 to 8 tab-separated columns (image, entrypoint, binary, env[, user[, workdir[, cmd[, files]]]]), got %d", line, len(cols))
		}
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		img := Image{Repository: cols[0]}
		if img.Repository == "" || img.Repository != Repository(img.Repository) {
			return nil, fmt.Errorf("line %d: image %q must be a repository without tag or digest", line, cols[0])
		}
		if cols[1] != "-" {
			if !filepath.IsAbs(cols[1]) {
				return nil, fmt.Errorf("line %d: entrypoint %q must be an absolute path or -", line, cols[1])
			}
			img.Entrypoint = cols[1]
		}
		if cols[2] != "-" {
			if !filepath.IsAbs(cols[2]) {
				return nil, fmt.Errorf("line %d: binary %q must be an absolute host path or -", line, cols[2])
			}
			img.Binary = cols[2]
		}
		if (img.Entrypoint == "") != (img.Binary == "") {
			return nil, fmt.Errorf("line %d: entrypoint and binary go together (both set or both -)", line)
		}
		if cols[3] != "-" && cols[3] != "" {
			for _, kv := range strings.Split(cols[3], ";") {
				if kv == "" {
					continue
				}
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return nil, fmt.Errorf("line %d: env entry %q is not K=V", line, kv)
				}
				img.Env = append(img.Env, EnvDefault{Name: k, Value: v})
			}
		}
		if len(cols) == 5 && cols[4] != "-" && cols[4] != "" {
			u, g, err := parseUser(cols[4])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			img.User, img.Group = u, g
		}
		set := func(i int) (string, bool) {
			if len(cols) <= i || cols[i] == "-" || cols[i] == "" {
				return "", false
			}
			return cols[i], true
		}
		if wd, ok := set(5); ok {
			if !filepath.IsAbs(wd) {
				return nil, fmt.Errorf("line %d: workdir %q must be an absolute path or -", line, wd)
			}
			img.WorkDir = wd
		}
		if cmd, ok := set(6); ok {
			if img.Binary == "" {
				return nil, fmt.Errorf("line %d: cmd %q needs an entrypoint and a binary", line, cmd)
			}
			img.Cmd = strings.Fields(cmd)
		}
		if files, ok := set(7); ok {
			if !filepath.IsAbs(files) {
				return nil, fmt.Errorf("line %d: files %q must be an absolute host path or -", line, files)
			}
			img.Files = files
		}
		if _, dup := t.images[img.Repository]; dup {
			return nil, fmt.Errorf("line %d: image %q listed twice", line, img.Repository)
		}
		t.images[img.Repository] = img
	}
	return t, sc.Err()
}

// Len is the number of images.
func (t *Table) Len() int { return len(t.images) }

// Lookup finds the row of a container image reference (tag and digest ignored).
func (t *Table) Lookup(image string) (Image, bool) {
	img, ok := t.images[Repository(image)]
	return img, ok
}

// Repository strips the tag and the digest from an image reference:
// "ghcr.io/x/y:v1@sha256:..." -> "ghcr.io/x/y"; "localhost:5000/y:v1" -> "localhost:5000/y".
func Repository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	// A colon after the last slash starts a tag; one before it belongs to a registry's port.
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

// Resolve says what runs for a container of this image: the argv whose argv[0] is either an
// absolute host path or a bare name to look up in the container's PATH, as the kubelet's runtime
// does with an image's ENTRYPOINT and CMD:
//
//	no command, no args             -> binary + the table's cmd (ENTRYPOINT + CMD)
//	no command                      -> binary + args (args replace the image's CMD)
//	command[0] == entrypoint        -> binary + command[1:] + args (also when command[0] is its basename)
//	any other command[0]            -> command + args, command[0] looked up in PATH when bare
func (img Image) Resolve(command, args []string) ([]string, error) {
	if len(command) == 0 {
		if img.Binary == "" {
			return nil, fmt.Errorf("image %s has no entrypoint in the image table and the container has no command", img.Repository)
		}
		if len(args) == 0 {
			args = img.Cmd
		}
		return append([]string{img.Binary}, args...), nil
	}
	if img.Binary != "" && (command[0] == img.Entrypoint || command[0] == filepath.Base(img.Entrypoint)) {
		argv := append([]string{img.Binary}, command[1:]...)
		return append(argv, args...), nil
	}
	argv := append([]string{}, command...)
	return append(argv, args...), nil
}

// parseUser reads UID or UID:GID, both numeric (the agent has no image /etc/passwd to look
// names up in).
func parseUser(text string) (uid, gid *int64, err error) {
	num := func(v string) (*int64, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > 1<<32-1 {
			return nil, fmt.Errorf("user %q: want a numeric UID or UID:GID", text)
		}
		return &n, nil
	}
	u, g, hasGroup := strings.Cut(text, ":")
	if uid, err = num(u); err != nil {
		return nil, nil, err
	}
	if hasGroup {
		if gid, err = num(g); err != nil {
			return nil, nil, err
		}
	}
	return uid, gid, nil
}
