// Command realpods-agent is the local cluster's node agent for real pods: it registers nodes
// through virtual-kubelet and runs the pods scheduled on them as processes, as their pod spec
// says (see README.md and ARCHITECTURE.md beside this file).
//
//	realpods-agent [flags]            run the agent
//	realpods-agent check              exit 0 when this machine can run real pods, else say why
//	realpods-agent container-init F   (internal) start one container from spec file F
package main

import (
	"fmt"
	"os"
	"syscall"

	"github.com/llm-infra/llm-infra-operator/hack/tools/realpods/internal/sandbox"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "container-init":
			// The agent's pipe is descriptor 3; the exec of the program closes it, which tells the
			// agent the start succeeded.
			syscall.CloseOnExec(3)
			if len(os.Args) != 3 {
				fmt.Fprintln(os.Stderr, "usage: realpods-agent container-init SPEC")
				os.Exit(2)
			}
			sandbox.Init(os.Args[2], os.NewFile(3, "start-error"))
			return
		case "check":
			if err := check(); err != nil {
				fmt.Fprintf(os.Stderr, "cannot run real pods: %v\n", err)
				os.Exit(1)
			}
			return
		case "check-sandbox":
			// (internal) the part of check that runs in new namespaces.
			if err := checkSandbox(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			return
		}
	}
	if err := runAgent(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "realpods-agent: %v\n", err)
		os.Exit(1)
	}
}
