// Package operator wires the operator into library-go's controllercmd, which brings leader
// election, the /healthz and /metrics server, signal handling and the event recorder.
package operator

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/llm-infra/llm-infra-operator/pkg/operator"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/operands"
	"github.com/llm-infra/llm-infra-operator/pkg/operator/registry"
	"github.com/llm-infra/llm-infra-operator/pkg/version"
)

// NewOperatorCommand returns the `operator` subcommand.
func NewOperatorCommand(ctx context.Context) *cobra.Command {
	config := controllercmd.NewControllerCommandConfig(registry.OperatorName, version.Get(), operator.RunOperator, clock.RealClock{})
	cmd := config.NewCommandWithContext(ctx)
	cmd.Use = "operator"
	cmd.Short = "Start the operator"
	addLeaderElectionFlags(cmd.Flags(), config)
	// Checked before controllercmd starts so a misconfigured Deployment fails with one clear
	// line instead of a stack of start-up logs.
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		_, err := operator.ImagesFromEnv(operands.All())
		return err
	}
	return cmd
}

// addLeaderElectionFlags binds the lease's timings to config. Zero keeps library-go's defaults
// (137s, 107s, 26s: a lease outlives 60s of API server downtime). A process killed without
// releasing its lease holds the next one back for up to the lease's duration: the reliability
// suite, which kills the operator many times, runs it with shorter ones.
func addLeaderElectionFlags(flags *pflag.FlagSet, config *controllercmd.ControllerCommandConfig) {
	flags.DurationVar(&config.LeaseDuration.Duration, "leader-elect-lease-duration", 0,
		"How long a leader's lease lasts without renewal (0: library-go's default, 137s).")
	flags.DurationVar(&config.RenewDeadline.Duration, "leader-elect-renew-deadline", 0,
		"How long the leader retries renewing before it gives up leading (0: library-go's default, 107s).")
	flags.DurationVar(&config.RetryPeriod.Duration, "leader-elect-retry-period", 0,
		"How long candidates wait between tries to acquire or renew (0: library-go's default, 26s).")
}
