package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/openapi"
)

// newOpenAPICmd prints the contract as an OpenAPI 3.1 document.
func newOpenAPICmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "openapi [--out FILE]",
		Short: "Print the contract as a self-contained OpenAPI 3.1 document",
		Long: `Print the contract (the operations table and every JSON Schema) as one OpenAPI 3.1
document: paths and operation ids, request bodies, responses by status with the error
envelope on 4XX, list parameters, and the HTTP Basic security scheme. Schemas become
components and every $ref points inside the document, so OpenAPI tools need nothing else.`,
		Example: `  conform openapi > payments-openapi.json
  conform openapi --out payments-openapi.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := validate.Default()
			if err != nil {
				return fmt.Errorf("openapi: load schemas: %w", err)
			}
			doc, err := openapi.Document(v, "Payments Service API", version())
			if err != nil {
				return err
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(doc)
				return err
			}
			if err := os.WriteFile(out, doc, 0o644); err != nil {
				return usageError(fmt.Errorf("openapi: %w", err))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the document to FILE instead of standard output")
	return cmd
}
