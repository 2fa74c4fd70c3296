package steps

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/conform-kit/conform/steps/report"
)

// outputs are the parsed formats: console styles and report files.
type outputs struct {
	console string // "progress", "pretty" or "" (quiet)
	reports []reportOut
	toOut   bool // a report is written to Out
}

type reportOut struct{ name, file string }

// parseFormats checks and splits the formats. At most one report may go to Out.
func parseFormats(formats []string) (outputs, error) {
	var o outputs
	for _, f := range formats {
		name, file, hasFile := strings.Cut(f, ":")
		switch name {
		case "progress", "pretty":
			if hasFile {
				return o, fmt.Errorf("%w: format %q writes to the console, not to a file", ErrUsage, f)
			}
			o.console = name
		case "json", "junit", "cucumber", "html":
			if hasFile && file == "" {
				return o, fmt.Errorf("%w: format %q names no file", ErrUsage, f)
			}
			if !hasFile {
				if o.toOut {
					return o, fmt.Errorf("%w: only one report can go to standard output; give the others a file (%s:FILE)", ErrUsage, name)
				}
				o.toOut = true
			}
			o.reports = append(o.reports, reportOut{name: name, file: file})
		default:
			return o, fmt.Errorf("%w: unknown format %q (progress, pretty, json:FILE, junit:FILE, cucumber:FILE, html:FILE)", ErrUsage, name)
		}
	}
	return o, nil
}

// write writes every report of the run, each to its file or to out.
func (o outputs) write(run report.Run, out io.Writer) error {
	for _, r := range o.reports {
		write := map[string]func(io.Writer, report.Run) error{
			"json": report.WriteResults, "junit": report.WriteJUnit, "cucumber": report.WriteCucumber, "html": report.WriteHTML,
		}[r.name]
		if r.file == "" {
			if err := write(out, run); err != nil {
				return err
			}
			continue
		}
		if err := writeFile(r.file, func(w io.Writer) error { return write(w, run) }); err != nil {
			return fmt.Errorf("%w: %s report: %w", ErrUsage, r.name, err)
		}
	}
	return nil
}

// writeFile writes a report through a temporary file renamed into place, so
// a reader never sees half a report; a missing folder of path is created.
func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(dirOf(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dirOf(path), ".conform-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i+1]
	}
	return "."
}
