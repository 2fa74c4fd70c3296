package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/validate"
)

// validateOptions holds the flags and arguments of conform validate.
type validateOptions struct {
	request  string // operation id whose request schema applies
	resource string // resource schema name
	format   string // text or json
	source   string // file path, or "-" for standard input
	stdin    io.Reader
	out      io.Writer
}

func newValidateCmd() *cobra.Command {
	opts := validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate (--request OPERATION_ID | --resource NAME) [FILE|-]",
		Short: "Validate a JSON document against a request or resource schema",
		Long: `Validate a JSON document (a file, or standard input when FILE is "-" or absent)
against the request schema of an operation or against a resource schema, and print every
violation as "pointer: message".

Exit codes: 0 valid, 1 invalid, 2 usage error (unknown operation or schema, unreadable
file, not JSON).`,
		Example: `  conform validate --request transfers.create sale.json
  echo '{"amount":-1}' | conform validate --request transfers.create --format json
  conform validate --resource authorization response.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.source = "-"
			if len(args) == 1 {
				opts.source = args[0]
			}
			opts.stdin = cmd.InOrStdin()
			opts.out = cmd.OutOrStdout()
			return runValidate(opts)
		},
	}
	cmd.Flags().StringVar(&opts.request, "request", "", "operation id whose request body schema applies (see conform schemas)")
	cmd.Flags().StringVar(&opts.resource, "resource", "", "resource schema name (see conform schemas)")
	cmd.Flags().StringVar(&opts.format, "format", "text", `output format: "text" (pointer: message) or "json"`)
	return cmd
}

// runValidate validates one document and maps the outcome to an exit code.
func runValidate(opts validateOptions) error {
	if (opts.request == "") == (opts.resource == "") {
		return usageError(errors.New("validate: give exactly one of --request or --resource"))
	}
	if opts.format != "text" && opts.format != "json" {
		return usageError(fmt.Errorf("validate: unknown --format %q (want text or json)", opts.format))
	}
	v, err := validate.Default()
	if err != nil {
		return fmt.Errorf("validate: load schemas: %w", err)
	}
	if opts.request != "" {
		op, ok := v.Operation(opts.request)
		if !ok {
			return usageError(fmt.Errorf("validate: unknown operation %q (see conform schemas)", opts.request))
		}
		if !hasJSONBody(op) {
			return usageError(fmt.Errorf("validate: operation %q takes no JSON body (request: %q)", op.ID, op.Request))
		}
	}
	doc, err := readSource(opts.source, opts.stdin)
	if err != nil {
		return usageError(err)
	}
	if opts.request != "" {
		err = v.RequestBody(opts.request, doc)
	} else {
		err = v.Resource(opts.resource, doc)
	}
	return report(opts, err)
}

// report prints the violations of err and returns the error that sets the exit code.
func report(opts validateOptions, err error) error {
	var verr *validate.Error
	switch {
	case err == nil:
		if opts.format == "json" {
			fmt.Fprintln(opts.out, "[]")
		} else {
			fmt.Fprintf(opts.out, "%s: valid\n", sourceName(opts.source))
		}
		return nil
	case errors.As(err, &verr):
		if opts.format == "json" {
			enc := json.NewEncoder(opts.out)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if e := enc.Encode(verr.Violations); e != nil {
				return fmt.Errorf("validate: write output: %w", e)
			}
		} else {
			for _, vi := range verr.Violations {
				fmt.Fprintf(opts.out, "%s: %s\n", pointerOrRoot(vi.Pointer), vi.Message)
			}
		}
		return &exitError{code: exitFailed}
	default:
		// Not JSON, unknown schema: the input or the call is wrong.
		return usageError(fmt.Errorf("%s: %w", sourceName(opts.source), err))
	}
}

func hasJSONBody(op validate.Operation) bool {
	switch op.Request {
	case "", "multipart", "binary":
		return false
	}
	return true
}

func readSource(source string, stdin io.Reader) ([]byte, error) {
	if source == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("validate: read standard input: %w", err)
		}
		return b, nil
	}
	b, err := os.ReadFile(source)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return b, nil
}

func sourceName(source string) string {
	if source == "-" {
		return "<stdin>"
	}
	return source
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}
