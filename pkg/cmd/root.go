// Package cmd builds the llm-infra-operator command line: `operator` runs the operator and
// `version` prints what was built.
package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/llm-infra/llm-infra-operator/pkg/cmd/operator"
	"github.com/llm-infra/llm-infra-operator/pkg/version"
)

// NewRootCommand returns the root command with its subcommands.
func NewRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:          "llm-infra-operator",
		Short:        "Installs and manages the serving infrastructure for large language models",
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.AddCommand(operator.NewOperatorCommand(context.Background()))
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version of this binary",
		Run: func(cmd *cobra.Command, args []string) {
			v := version.Get()
			fmt.Fprintf(cmd.OutOrStdout(), "llm-infra-operator %s (commit %s, built %s, %s %s)\n",
				v.GitVersion, v.GitCommit, v.BuildDate, v.GoVersion, v.Platform)
		},
	})
	return root
}
