package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/openapi"
)

// newOpenAPICmd prints the contract as an OpenAPI 3.1 or 3.0 document.
func newOpenAPICmd() *cobra.Command {
	var out, spec string
	cmd := &cobra.Command{
		Use:   "openapi [--version 3.1|3.0] [--out FILE]",
		Short: "Print the contract as a self-contained OpenAPI 3.1 or 3.0 document",
		Long: `Print the contract (the operations table and every JSON Schema) as one OpenAPI
document: paths and operation ids, request bodies, responses by status with the error
envelope on 4XX, list parameters, and the HTTP Basic security scheme. Schemas become
components and every $ref points inside the document, so OpenAPI tools need nothing else;
no $ref stands beside other keywords (those become allOf members).

--version 3.1 (the default) writes the schemas as they are, JSON Schema 2020-12.
--version 3.0 is for tools that take only 3.0: nullable for null types, boolean exclusive
bounds, enum for const, example for examples, and anyOf/not for if/then/else and
dependentSchemas. What 3.0 cannot say is dropped and named in the schema's
x-conform-dropped; the contract's schemas lose nothing.`,
		Example: `  conform openapi > payments-openapi.json
  conform openapi --version 3.0 --out payments-openapi-3.0.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := validate.Default()
			if err != nil {
				return fmt.Errorf("openapi: load schemas: %w", err)
			}
			doc, err := openapi.Document(v, "Payments Service API", version(), openapi.Spec(spec))
			if unknown := (*openapi.UnknownSpecError)(nil); errors.As(err, &unknown) {
				return usageError(err)
			}
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
	cmd.Flags().StringVar(&spec, "version", string(openapi.OAS31), "the OpenAPI version to write: 3.1 or 3.0")
	cmd.Flags().StringVar(&out, "out", "", "write the document to FILE instead of standard output")
	return cmd
}
