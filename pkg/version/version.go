// Package version reports the build's version, set at link time by the Makefile.
package version

import (
	"fmt"
	"runtime"

	"k8s.io/apimachinery/pkg/version"
)

// These are overwritten with -ldflags -X at build time; the defaults mark a development build.
var (
	gitVersion = "v0.0.0-dev"
	gitCommit  = "unknown"
	buildDate  = "1970-01-01T00:00:00Z"
)

// Get returns the version of this binary in the shape controllercmd expects.
func Get() version.Info {
	return version.Info{
		GitVersion: gitVersion,
		GitCommit:  gitCommit,
		BuildDate:  buildDate,
		GoVersion:  runtime.Version(),
		Compiler:   runtime.Compiler,
		Platform:   fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}
