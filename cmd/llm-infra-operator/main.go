// Command llm-infra-operator installs and runs the serving infrastructure for large language
// models: today the LeaderWorkerSet controller.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/llm-infra/llm-infra-operator/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewRootCommand()))
}
