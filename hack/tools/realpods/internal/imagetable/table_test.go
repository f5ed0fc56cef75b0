package imagetable

import (
	"reflect"
	"strings"
	"testing"
)

const sample = "# image\tentrypoint\tbinary\tenv\n" +
	"ghcr.io/llm-d/llm-d-inference-sim\t/app/llm-d-inference-sim\t/out/bin/llm-d-inference-sim\t-\n" +
	"\n" +
	"docker.io/library/node\t-\t-\tNODE_VERSION=22;YARN_VERSION=1.22\n" +
	"localhost:5000/gw\t/gateway\t/out/bin/gateway\tA=1\t65532:65533\n" +
	"quay.io/x/uid-only\t/x\t/out/bin/x\t-\t1001\n" +
	"ghcr.io/x/agent\t/app/main\t/out/bin/agent\tA2A_SERVER_PORT=8080\t1001:1001\t/app\tstart --quiet\t/out/images/agent\n"

func TestParseAndLookup(t *testing.T) {
	tb, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 5 {
		t.Fatalf("Len = %d, want 5", tb.Len())
	}
	for _, tc := range []struct {
		image string
		want  string
		found bool
	}{
		{"ghcr.io/llm-d/llm-d-inference-sim:v0.10.2", "ghcr.io/llm-d/llm-d-inference-sim", true},
		{"ghcr.io/llm-d/llm-d-inference-sim@sha256:abc", "ghcr.io/llm-d/llm-d-inference-sim", true},
		{"ghcr.io/llm-d/llm-d-inference-sim:v1@sha256:abc", "ghcr.io/llm-d/llm-d-inference-sim", true},
		{"localhost:5000/gw:latest", "localhost:5000/gw", true},
		{"localhost:5000/gw", "localhost:5000/gw", true},
		{"docker.io/library/node:lts", "docker.io/library/node", true},
		{"registry.k8s.io/lws/lws:v0.8.0", "", false},
	} {
		img, ok := tb.Lookup(tc.image)
		if ok != tc.found || img.Repository != tc.want {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tc.image, img.Repository, ok, tc.want, tc.found)
		}
	}
	node, _ := tb.Lookup("docker.io/library/node:lts")
	if want := []EnvDefault{{"NODE_VERSION", "22"}, {"YARN_VERSION", "1.22"}}; !reflect.DeepEqual(node.Env, want) {
		t.Errorf("env = %v, want %v", node.Env, want)
	}
	if node.User != nil || node.Group != nil {
		t.Errorf("4 columns: user %v group %v, want none (root)", node.User, node.Group)
	}
	gw, _ := tb.Lookup("localhost:5000/gw")
	if gw.User == nil || *gw.User != 65532 || gw.Group == nil || *gw.Group != 65533 {
		t.Errorf("user 65532:65533: got %v:%v", gw.User, gw.Group)
	}
	uidOnly, _ := tb.Lookup("quay.io/x/uid-only")
	if uidOnly.User == nil || *uidOnly.User != 1001 || uidOnly.Group != nil {
		t.Errorf("user 1001: got %v:%v, want 1001 and no group", uidOnly.User, uidOnly.Group)
	}
	if uidOnly.WorkDir != "" || uidOnly.Cmd != nil || uidOnly.Files != "" {
		t.Errorf("5 columns: workdir %q cmd %v files %q, want none", uidOnly.WorkDir, uidOnly.Cmd, uidOnly.Files)
	}
	agent, _ := tb.Lookup("ghcr.io/x/agent:latest")
	if agent.WorkDir != "/app" || !reflect.DeepEqual(agent.Cmd, []string{"start", "--quiet"}) || agent.Files != "/out/images/agent" {
		t.Errorf("8 columns: workdir %q cmd %v files %q", agent.WorkDir, agent.Cmd, agent.Files)
	}
}

func TestParseErrors(t *testing.T) {
	for name, text := range map[string]string{
		"three columns":       "a\t/e\t/b\n",
		"tag in image":        "a:v1\t/e\t/b\t-\n",
		"relative binary":     "a\t/e\tbin/b\t-\n",
		"entrypoint alone":    "a\t/e\t-\t-\n",
		"env without equals":  "a\t/e\t/b\tNOPE\n",
		"image listed twice":  "a\t/e\t/b\t-\na\t/e\t/b\t-\n",
		"relative entrypoint": "a\te\t/b\t-\n",
		"nine columns":        "a\t/e\t/b\t-\t1\t/w\tc\t/f\tx\n",
		"relative workdir":    "a\t/e\t/b\t-\t1\tapp\n",
		"cmd without binary":  "a\t-\t-\t-\t-\t-\tstart\n",
		"relative files":      "a\t/e\t/b\t-\t-\t-\t-\tfiles\n",
		"user by name":        "a\t/e\t/b\t-\tnobody\n",
		"negative group":      "a\t/e\t/b\t-\t1:-1\n",
	} {
		if _, err := Parse(strings.NewReader(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestResolve(t *testing.T) {
	img := Image{Repository: "x", Entrypoint: "/app/server", Binary: "/out/server"}
	plain := Image{Repository: "node"}
	withCmd := Image{Repository: "agent", Entrypoint: "/app/main", Binary: "/out/agent", Cmd: []string{"start"}}
	for _, tc := range []struct {
		name          string
		img           Image
		command, args []string
		want          []string
		wantErr       bool
	}{
		{"no command runs the binary with args", img, nil, []string{"--port=1"}, []string{"/out/server", "--port=1"}, false},
		{"entrypoint as command", img, []string{"/app/server", "serve"}, []string{"-v"}, []string{"/out/server", "serve", "-v"}, false},
		{"entrypoint's basename as command", img, []string{"server"}, nil, []string{"/out/server"}, false},
		{"another command is kept for a PATH lookup", img, []string{"sh", "-c", "true"}, []string{"x"}, []string{"sh", "-c", "true", "x"}, false},
		{"another absolute command is kept", img, []string{"/bin/echo"}, nil, []string{"/bin/echo"}, false},
		{"image without entrypoint: commands are host programs", plain, []string{"npx", "-y", "pkg"}, nil, []string{"npx", "-y", "pkg"}, false},
		{"image without entrypoint and no command", plain, nil, []string{"a"}, nil, true},
		{"neither command nor args runs the image's cmd", withCmd, nil, nil, []string{"/out/agent", "start"}, false},
		{"args replace the image's cmd", withCmd, nil, []string{"version"}, []string{"/out/agent", "version"}, false},
		{"a command drops the image's cmd", withCmd, []string{"/app/main"}, nil, []string{"/out/agent"}, false},
	} {
		got, err := tc.img.Resolve(tc.command, tc.args)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Resolve = %v, %v; want %v (error %v)", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
