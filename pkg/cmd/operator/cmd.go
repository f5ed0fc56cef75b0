// Package operator wires the operator into library-go's controllercmd, which brings leader
// election, the /healthz and /metrics server, signal handling and the event recorder.
package operator

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/llm-infra/llm-infra-operator/pkg/operator"
	"github.com/llm-infra/llm-infra-operator/pkg/version"
)

// NewOperatorCommand returns the `operator` subcommand.
func NewOperatorCommand(ctx context.Context) *cobra.Command {
	cmd := controllercmd.NewControllerCommandConfig("llm-infra-operator", version.Get(), operator.RunOperator, clock.RealClock{}).
		NewCommandWithContext(ctx)
	cmd.Use = "operator"
	cmd.Short = "Start the operator"
	// Checked before controllercmd starts so a misconfigured Deployment fails with one clear
	// line instead of a stack of start-up logs.
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		_, err := operator.ImagesFromEnv()
		return err
	}
	return cmd
}
