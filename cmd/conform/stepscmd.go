package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/steps"
)

// newStepsCmd prints the step vocabulary a feature from disk may use.
func newStepsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "steps",
		Short: "List every step a feature may use (conform run --features)",
		Long: `Steps lists every step a feature file may use, by vocabulary file, as a feature writes
it: "…" stands for a quoted text, N for a whole number, WORDS for a few lowercase words,
(a|b) for a choice of one, item(s) for an optional letter. Given, When, Then, And and But
all take any step. Any step may end " (assumed: KEY)", which judges its checks under that
profile key (WARN rather than FAIL). A feature from disk using a step not listed here is
refused with its file, its line and the nearest step.`,
		Example: `  conform steps
  conform steps | grep -i capture`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			n := 0
			for i, g := range steps.Vocabulary() {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "# %s\n", g.Name)
				for _, s := range g.Steps {
					fmt.Fprintf(w, "  %s\n", s)
				}
				n += len(g.Steps)
			}
			_, err := fmt.Fprintf(w, "\n%d steps\n", n)
			return err
		},
	}
}
