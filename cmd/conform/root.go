package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes of the conform binary.
const (
	exitOK     = 0 // all passed, or the document is valid
	exitFailed = 1 // conformance failures, or the document is invalid
	exitUsage  = 2 // usage or configuration error
)

// exitError carries an exit code to execute. A nil err with a code prints nothing more.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError wraps err as an exit-2 error.
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// newRootCmd builds the conform command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "conform",
		Short: "Conformance kit and validator for the Payments Service API",
		Long: `conform checks a Payments Service API server against the contract, clause by clause,
validates request and resource documents against the contract's JSON Schemas, and serves
an in-memory reference implementation of the whole API.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newRunCmd(),
		newExploreCmd(),
		newServeCmd(),
		newValidateCmd(),
		newSchemasCmd(),
		newFaultsCmd(),
		newVersionCmd(),
		newOpenAPICmd(),
		newProxyCmd(),
		newProfileCmd(),
		newKeygenCmd(),
		newVerifyCmd(),
		newStepsCmd(),
	)
	root.SetFlagErrorFunc(flagError)
	return root
}

// flagError makes a flag error a usage error (exit 2); an unknown long
// flag near one of the command's own gets "did you mean --target?".
func flagError(cmd *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	if errors.As(err, &unknown) && unknown.GetSpecifiedShortnames() == "" {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		if best, ok := nearest(unknown.GetSpecifiedName(), names); ok {
			err = fmt.Errorf("%w; did you mean --%s?", err, best)
		}
	}
	return usageError(err)
}

// execute runs the command tree with args and returns the process exit code.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "conform:", ee.err)
		}
		return ee.code
	}
	// Errors cobra itself reports (unknown command, bad arguments) are usage errors.
	fmt.Fprintln(stderr, "conform:", err)
	return exitUsage
}
