package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/reference/faults"
)

func newFaultsCmd() *cobra.Command {
	var asJSON, variants, explored bool
	cmd := &cobra.Command{
		Use:   "faults",
		Short: "List the fault catalog: the deliberate breaks of the reference the suite must catch",
		Long: `List every fault of the catalog: its name (for conform serve --fault), the capability it
breaks, the expected verdict of the suite (FAIL when a normative clause is broken, WARN when
only an assumed decision is) and the clause it breaks. --json adds the godog tags that
select the scenarios exercising it and the names of the scenarios expected to catch it.`,
		Example: `  conform faults
  conform serve --fault capture-over-amount-accepted`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case variants && asJSON:
				return listVariantsJSON(cmd.OutOrStdout(), faults.Variants())
			case variants:
				return listVariants(cmd.OutOrStdout(), faults.Variants())
			}
			catalog := faults.Catalog()
			if explored {
				catalog = faults.ExploreCatalog()
			}
			if asJSON {
				return listFaultsJSON(cmd.OutOrStdout(), catalog)
			}
			return listFaults(cmd.OutOrStdout(), catalog)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalog as a JSON array, with tags and catching scenarios (with --variants: each variant's choice, profile object and tags)")
	cmd.Flags().BoolVar(&explored, "explore", false, "list the explore faults instead: breaks where the suite's fixed scenarios do not look, which conform explore must catch")
	cmd.Flags().BoolVar(&variants, "variants", false, "list the conformant variants instead (for conform serve --variant): each choice and the profile declaring it")
	return cmd
}

// listFaults writes one line per fault: name, capability, expected verdict, clause broken.
func listFaults(w io.Writer, catalog []faults.Fault) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tCAPABILITY\tEXPECT\tBREAKS")
	for _, f := range catalog {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, f.Capability, f.Expect, f.Breaks)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d faults\n", len(catalog))
	return err
}

// listVariants writes one line per conformant variant: name, choice, profile.
func listVariants(w io.Writer, catalog []faults.Variant) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIANT\tCHOICE\tPROFILE")
	for _, v := range catalog {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Name, v.Choice, v.Profile)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d variants\n", len(catalog))
	return err
}

// listVariantsJSON writes the variants as a JSON array, each profile as the
// object it declares (to merge into a profile for several variants at once).
func listVariantsJSON(w io.Writer, catalog []faults.Variant) error {
	type row struct {
		Name    string          `json:"name"`
		Choice  string          `json:"choice"`
		Profile json.RawMessage `json:"profile"`
		Tags    string          `json:"tags"`
	}
	rows := make([]row, 0, len(catalog))
	for _, v := range catalog {
		rows = append(rows, row{Name: v.Name, Choice: v.Choice, Profile: json.RawMessage(v.Profile), Tags: v.Tags})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// listFaultsJSON writes the catalog as a JSON array.
func listFaultsJSON(w io.Writer, catalog []faults.Fault) error {
	type entry struct {
		Name       string   `json:"name"`
		Capability string   `json:"capability"`
		Breaks     string   `json:"breaks"`
		Expect     string   `json:"expect"`
		Tags       string   `json:"tags"`
		Catchers   []string `json:"catchers"`
	}
	out := make([]entry, 0, len(catalog))
	for _, f := range catalog {
		out = append(out, entry{f.Name, f.Capability, f.Breaks, f.Expect, f.Tags, f.Catchers})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
