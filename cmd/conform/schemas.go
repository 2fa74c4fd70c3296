package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/validate"
)

func newSchemasCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schemas",
		Short: "List the operations table and the schema names",
		Long: `List every operation of the contract (id, method, path, success status, source) and
every schema name. "conform schemas show NAME" prints one schema.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := validate.Default()
			if err != nil {
				return fmt.Errorf("schemas: %w", err)
			}
			return listSchemas(cmd.OutOrStdout(), v)
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show NAME",
		Short: "Print one JSON Schema",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := validate.Default()
			if err != nil {
				return fmt.Errorf("schemas: %w", err)
			}
			raw, ok := v.Schema(args[0])
			if !ok {
				return usageError(fmt.Errorf("schemas: unknown schema %q%s (conform schemas lists them)", args[0], schemaHint(v, args[0])))
			}
			_, err = cmd.OutOrStdout().Write(raw)
			return err
		},
	})
	return cmd
}

// schemaHint suggests the schema meant by an unknown name: for an
// operation id its request schema (else its response schema), else the
// nearest schema name.
func schemaHint(v *validate.Validator, name string) string {
	if op, ok := v.Operation(name); ok {
		switch {
		case op.Request != "" && op.Response != "":
			return fmt.Sprintf("; did you mean %q? (the request body of operation %s; its response is %q)", op.Request, name, op.Response)
		case op.Request != "":
			return fmt.Sprintf("; did you mean %q? (the request body of operation %s)", op.Request, name)
		case op.Response != "":
			return fmt.Sprintf("; did you mean %q? (the response of operation %s)", op.Response, name)
		}
	}
	return nearestHint(name, v.Schemas())
}

// listSchemas writes the operations table, then the schema names.
func listSchemas(w io.Writer, v *validate.Validator) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tMETHOD\tPATH\tSTATUS\tSOURCE")
	for _, op := range v.Operations() {
		method := op.Method
		for _, m := range op.AlsoMethods {
			method += "|" + m
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", op.ID, method, op.Path, op.Status, op.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSCHEMAS")
	for _, name := range v.Schemas() {
		fmt.Fprintln(w, name)
	}
	return nil
}
