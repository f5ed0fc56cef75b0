// Command npmregistry serves, read-only, what one npm cache (`npm install --cache DIR`) holds:
// the registry's answers it recorded (package documents, tarballs), by request path. Tarball
// addresses in package documents are rewritten to this server (-public-url, the address its
// clients know it by, e.g. a cluster Service's name), so a client configured with
// `registry=http://<addr>/` installs exactly the packages that were installed at set-up time
// and nothing leaves loopback. Anything the cache lacks is 404.
//
// The cache format is npm's cacache: index-v5/ holds lines "<sha1>\t<json>" whose key is
// "make-fetch-happen:request-cache:<url>" and whose integrity names the body in content-v2/.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/llm-infra/llm-infra-operator/hack/tools/services/internal/serve"
)

const keyPrefix = "make-fetch-happen:request-cache:"

type entry struct {
	Key       string `json:"key"`
	Integrity string `json:"integrity"`
	Metadata  struct {
		ResHeaders map[string]string `json:"resHeaders"`
	} `json:"metadata"`
}

type object struct {
	file        string
	contentType string
}

// load reads the index of the cacache folder: request path -> content file. Later lines win,
// as in cacache.
func load(cache, upstream string) (map[string]object, error) {
	objects := map[string]object{}
	err := filepath.WalkDir(filepath.Join(cache, "index-v5"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			_, body, ok := strings.Cut(sc.Text(), "\t")
			if !ok {
				continue
			}
			var e entry
			if json.Unmarshal([]byte(body), &e) != nil || !strings.HasPrefix(e.Key, keyPrefix) || e.Integrity == "" {
				continue
			}
			raw := strings.TrimPrefix(e.Key, keyPrefix)
			if !strings.HasPrefix(raw, upstream) {
				continue
			}
			file, err := contentFile(cache, e.Integrity)
			if err != nil {
				continue
			}
			objects["/"+strings.TrimPrefix(raw, upstream)] = object{file: file, contentType: e.Metadata.ResHeaders["content-type"]}
		}
		return sc.Err()
	})
	return objects, err
}

// contentFile: content-v2/<algorithm>/<hex[0:2]>/<hex[2:4]>/<hex[4:]> of an SRI integrity.
func contentFile(cache, integrity string) (string, error) {
	algo, b64, ok := strings.Cut(strings.Fields(integrity)[0], "-")
	if !ok {
		return "", fmt.Errorf("integrity %q", integrity)
	}
	sum, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", err
	}
	h := hex.EncodeToString(sum)
	file := filepath.Join(cache, "content-v2", algo, h[:2], h[2:4], h[4:])
	_, err = os.Stat(file)
	return file, err
}

// normalize a request path to the cache's form: a scoped package document is
// /@scope%2fname (npm sends the slash escaped, other clients may not).
func normalize(path string) string {
	path = strings.Replace(path, "%2F", "%2f", 1)
	if strings.HasPrefix(path, "/@") && strings.Count(path, "/") == 2 {
		path = strings.Replace(path[1:], "/", "%2f", 1)
		path = "/" + path
	}
	return path
}

func main() {
	addr := flag.String("addr", "127.0.0.1:4873", "listen address (loopback)")
	cache := flag.String("cache", "", "the npm cache folder (holding _cacache, or the _cacache folder itself)")
	upstream := flag.String("upstream", "https://registry.npmjs.org/", "the registry the cache was filled from")
	public := flag.String("public-url", "", "the address clients know this registry by, for the tarball URLs (default http://<addr>/)")
	flag.Parse()
	dir := *cache
	if _, err := os.Stat(filepath.Join(dir, "_cacache")); err == nil {
		dir = filepath.Join(dir, "_cacache")
	}
	objects, err := load(dir, *upstream)
	if err != nil {
		log.Fatalf("npmregistry: %v", err)
	}
	if len(objects) == 0 {
		log.Fatalf("npmregistry: no registry answers in %s", dir)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("npmregistry: %v", err)
	}
	self := "http://" + ln.Addr().String() + "/"
	if *public != "" {
		self = strings.TrimSuffix(*public, "/") + "/"
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only registry", http.StatusMethodNotAllowed)
			return
		}
		path := normalize(r.URL.EscapedPath())
		obj, ok := objects[path]
		if !ok {
			log.Printf("npmregistry: 404 %s", path)
			http.NotFound(w, r)
			return
		}
		body, err := os.ReadFile(obj.file)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if strings.Contains(obj.contentType, "json") {
			body = bytes.ReplaceAll(body, []byte(*upstream), []byte(self))
		}
		if obj.contentType != "" {
			w.Header().Set("Content-Type", obj.contentType)
		}
		_, _ = w.Write(body)
	})
	log.Printf("npmregistry: serving %d registry answers from %s on %s", len(objects), dir, self)
	serve.Until("npmregistry", ln, handler)
}
