// Command realpods-echo is the live test's program (and a handy one to try real pods with): an
// HTTP server that reports what it sees from inside its pod, plus a few one-shot modes.
//
//	realpods-echo serve [--listen :8080] [--ready] [--config FILE] [--child]
//	    GET  /healthz            200
//	    GET  /ready              200 once ready (--ready, or after POST /control/ready), else 503
//	    POST /control/ready      become ready
//	    GET  /info               JSON: uid, gid, groups, hostname, pod IP, env, the config file
//	    GET  /write?path=P       try to create file P: {"ok":bool,"error":...}
//	    GET  /fetch?url=U[&method=POST]   fetch U from inside the pod: {"status":N,"body":...,"error":...}
//	    GET  /dial?addr=A        TCP connect to A: {"ok":bool,"error":...,"millis":N}
//	    GET  /child              the pid of the child process started with --child
//	realpods-echo crash [--code N]    exit with code N at once (a crash loop)
//	realpods-echo sleep               sleep until killed
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: realpods-echo serve|crash|sleep [flags]")
	}
	switch os.Args[1] {
	case "serve":
		serve(os.Args[2:])
	case "crash":
		fs := flag.NewFlagSet("crash", flag.ExitOnError)
		code := fs.Int("code", 3, "exit code")
		_ = fs.Parse(os.Args[2:])
		fmt.Printf("crashing with %d\n", *code)
		os.Exit(*code)
	case "sleep":
		select {}
	default:
		log.Fatalf("unknown mode %q", os.Args[1])
	}
}

func serve(args []string) {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	listen := fs.String("listen", ":8080", "address")
	readyNow := fs.Bool("ready", false, "ready from the start")
	config := fs.String("config", "", "a file to report in /info (a mounted ConfigMap)")
	child := fs.Bool("child", false, "start a child process (to see it killed with the pod)")
	_ = fs.Parse(args)
	var ready atomic.Bool
	ready.Store(*readyNow)
	var childPid int
	if *child {
		self, _ := os.Executable()
		c := exec.Command(self, "sleep")
		if err := c.Start(); err != nil {
			log.Fatalf("child: %v", err)
		}
		childPid = c.Process.Pid
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) {
		if !ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.HandleFunc("/control/ready", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST", http.StatusMethodNotAllowed)
			return
		}
		ready.Store(true)
		fmt.Fprintln(w, "ready now")
	})
	mux.HandleFunc("/info", func(w http.ResponseWriter, _ *http.Request) {
		groups, _ := os.Getgroups()
		sort.Ints(groups)
		host, _ := os.Hostname()
		var cfg string
		if *config != "" {
			b, err := os.ReadFile(*config)
			if err != nil {
				cfg = "error: " + err.Error()
			} else {
				cfg = string(b)
			}
		}
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		reply(w, map[string]any{
			"uid": os.Getuid(), "gid": os.Getgid(), "groups": groups, "hostname": host,
			"addrs": addrs(), "env": env, "config": cfg, "pid": os.Getpid(),
		})
	})
	mux.HandleFunc("/stat", func(w http.ResponseWriter, r *http.Request) {
		_, err := os.Stat(r.URL.Query().Get("path"))
		reply(w, map[string]any{"ok": err == nil, "error": errString(err)})
	})
	mux.HandleFunc("/write", func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Query().Get("path")
		err := os.WriteFile(p, []byte("written by realpods-echo\n"), 0o644)
		if err == nil {
			_ = os.MkdirAll(filepath.Join(filepath.Dir(p), "subdir-"+filepath.Base(p)), 0o755)
		}
		reply(w, map[string]any{"ok": err == nil, "error": errString(err)})
	})
	mux.HandleFunc("/fetch", func(w http.ResponseWriter, r *http.Request) {
		u := r.URL.Query().Get("url")
		method := r.URL.Query().Get("method")
		if method == "" {
			method = http.MethodGet
		}
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, u, nil)
		if err != nil {
			reply(w, map[string]any{"error": err.Error()})
			return
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			reply(w, map[string]any{"error": err.Error()})
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		reply(w, map[string]any{"status": resp.StatusCode, "body": string(body)})
	})
	mux.HandleFunc("/dial", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		c, err := net.DialTimeout("tcp", r.URL.Query().Get("addr"), 5*time.Second)
		if err == nil {
			c.Close()
		}
		reply(w, map[string]any{"ok": err == nil, "error": errString(err), "millis": time.Since(start).Milliseconds()})
	})
	mux.HandleFunc("/child", func(w http.ResponseWriter, _ *http.Request) { reply(w, map[string]any{"pid": childPid}) })
	log.Printf("listening on %s (ready=%v)", *listen, ready.Load())
	log.Fatal(http.ListenAndServe(*listen, mux))
}

func addrs() []string {
	var out []string
	as, _ := net.InterfaceAddrs()
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
