package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/steps"
)

// feeFeature is a scenario a user writes outside the repository: a sale
// whose fee exceeds its amount is refused (§4.2, §7).
const feeFeature = `@mine @spec-4.2
Feature: My own fee rule
  A regression kept from a finding.

  Scenario: a sale whose fee is twice its amount is refused
    Given I am the platform user
    And a card for the buyer
    When I create a sale of 500 cents with a fee of 1000 cents
    Then the request is refused as an invalid field "/fee"
`

// TestRunFeaturesFromDisk: a scenario written to a file outside the
// repository, run by the built binary with --features, FAILs against a
// server with the fault it is about and PASSes against the reference; the
// reports name the file.
func TestRunFeaturesFromDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and serves the reference twice")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "conform")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	feature := filepath.Join(dir, "mine", "fees.feature")
	require.NoError(t, os.MkdirAll(filepath.Dir(feature), 0o755))
	require.NoError(t, os.WriteFile(feature, []byte(feeFeature), 0o600))

	for _, tc := range []struct {
		name     string
		serve    []string
		features []string // --features arguments
		wantCode int
		wantLine string
	}{
		{"faulted server, the file", []string{"--fault", "sale-fee-over-amount-accepted"}, []string{"--features", feature, "--features-only"}, exitFailed, "FAIL  " + feature + ":5 a sale whose fee is twice its amount is refused [§4.2]"},
		{"reference, the file", nil, []string{"--features", feature, "--features-only"}, exitOK, "PASS  " + feature + ":5 a sale whose fee is twice its amount is refused [§4.2]"},
		{"faulted server, the folder with the embedded features", []string{"--fault", "sale-fee-over-amount-accepted"}, []string{"--features", filepath.Dir(feature), "--tags", "@mine or @transfers"}, exitFailed, "FAIL  " + feature + ":5 a sale whose fee is twice its amount is refused [§4.2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixtures := filepath.Join(t.TempDir(), "conform.json")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			serve := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--fixtures", fixtures}, tc.serve...)...)
			serve.Cancel = func() error { return serve.Process.Signal(os.Interrupt) }
			serve.WaitDelay = 10 * time.Second
			require.NoError(t, serve.Start())
			exited := make(chan int, 1)
			go func() {
				_ = serve.Wait()
				exited <- serve.ProcessState.ExitCode()
			}()
			defer func() {
				cancel()
				<-exited
			}()
			cfg := waitForFixtures(t, fixtures, exited)

			var out, errOut bytes.Buffer
			cmd := exec.Command(bin, append([]string{"run", "--target", cfg.Target, "--config", fixtures, "--format", "pretty", "--seed", "0"}, tc.features...)...)
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err := cmd.Run()
			code := 0
			if err != nil {
				var ee *exec.ExitError
				require.ErrorAs(t, err, &ee, "stderr: %s", errOut.String())
				code = ee.ExitCode()
			}
			assert.Equal(t, tc.wantCode, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			assert.Contains(t, out.String(), tc.wantLine)
		})
	}
}

// TestRunFeaturesRefused: a feature from disk that cannot be read, does not
// parse or has a step the kit does not define is refused before anything
// runs, exit 2, naming the file and the line.
func TestRunFeaturesRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	syntax := write("syntax.feature", "Feature: x\n  Scenario: y\n    Given I am the platform user\n  Scenario z\n")
	undefined := write("undefined.feature", "Feature: x\n  Scenario: y\n    Given I am the platform user\n    When I frobnicate the sale\n")
	nearMiss := write("near.feature", "Feature: x\n  Scenario: y\n    Given I am the platform user\n    When I authorise 500 cents\n")
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"syntax error", []string{"--features", syntax}, syntax + " (4:3): expected:"},
		{"undefined step", []string{"--features", undefined}, undefined + ":4: undefined step: I frobnicate the sale"},
		{"near-miss step", []string{"--features", nearMiss}, nearMiss + ":4: undefined step: I authorise 500 cents; did you mean: I authorize N cents? (conform steps lists every step)"},
		{"missing file", []string{"--features", filepath.Join(dir, "nope.feature")}, "nope.feature: no such file or directory"},
		{"folder without features", []string{"--features", empty}, "the folder holds no *.feature file"},
		{"only without features", []string{"--features-only"}, "--features-only needs --features"},
		{"listed, too", []string{"--features", undefined, "--list"}, undefined + ":4: undefined step"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, "", append([]string{"run"}, tc.args...)...)
			assert.Equal(t, exitUsage, code, "stdout: %s", out)
			assert.Contains(t, errOut, tc.wantErr)
			assert.NotContains(t, errOut, "bundled reference at", "refused before the reference starts")
		})
	}
}

// TestSuggestions: a misspelt flag, schema name or operation id given as a
// schema name is refused (exit 2) with what was probably meant.
func TestSuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--taget", "http://127.0.0.1:9"}, "unknown flag: --taget; did you mean --target?"},
		{[]string{"run", "--list", "--featres", "x"}, "did you mean --features?"},
		{[]string{"serve", "--fixture", "x.json"}, "did you mean --fixtures?"},
		{[]string{"schemas", "show", "transfers.create"}, `did you mean "transfer_create"? (the request body of operation transfers.create; its response is "transfer")`},
		{[]string{"schemas", "show", "transfers.get"}, `did you mean "transfer"? (the response of operation transfers.get)`},
		{[]string{"schemas", "show", "transfer_creat"}, `did you mean "transfer_create"?`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := run(t, "", tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
	_, _, errOut := run(t, "", "run", "--zzzzzzzzzz")
	assert.NotContains(t, errOut, "did you mean", "nothing near enough is suggested")
}

// TestREADMECommandsTable: the commands table of cmd/conform/README.md
// names every command and subcommand, and every flag of conform faults
// that changes what it lists.
func TestREADMECommandsTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(readme), "\n## Commands\n")
	require.True(t, ok, "cmd/conform/README.md has no Commands section")
	table, _, _ = strings.Cut(table, "\n## ")
	root := newRootCmd()
	for _, cmd := range root.Commands() {
		if cmd.Hidden || cmd.Name() == "help" || cmd.Name() == "completion" {
			continue
		}
		assert.Contains(t, table, "`conform "+cmd.Name(), "the commands table lacks conform %s", cmd.Name())
		for _, sub := range cmd.Commands() {
			assert.Contains(t, table, "`conform "+cmd.Name()+" "+sub.Name(), "the commands table lacks conform %s %s", cmd.Name(), sub.Name())
		}
	}
	for _, flag := range []string{"--json", "--explore", "--variants"} {
		assert.Regexp(t, "`conform faults [^`]*"+flag, table, "the commands table lacks conform faults %s", flag)
	}
}

// TestRootREADMELayout: the project README's layout row of cmd/conform
// names every command, and the row of reference/ speaks of the PostgreSQL
// store as the thing conform serve --store serves, not as coming.
func TestRootREADMELayout(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var cmdRow, refRow string
	for _, line := range strings.Split(string(readme), "\n") {
		switch {
		case strings.HasPrefix(line, "| [`cmd/conform`]"):
			cmdRow = line
		case strings.HasPrefix(line, "| [`reference/`]"):
			refRow = line
		}
	}
	require.NotEmpty(t, cmdRow, "README.md's layout has no cmd/conform row")
	require.NotEmpty(t, refRow, "README.md's layout has no reference/ row")
	for _, cmd := range newRootCmd().Commands() {
		if cmd.Hidden || cmd.Name() == "help" || cmd.Name() == "completion" {
			continue
		}
		assert.Contains(t, cmdRow, "`"+cmd.Name()+"`", "README.md's cmd/conform row lacks %s", cmd.Name())
	}
	serve := newServeCmd()
	require.NotNil(t, serve.Flags().Lookup("store"), "conform serve --store exists")
	assert.NotContains(t, refRow, "(coming)", "the PostgreSQL store is served by conform serve --store")
	assert.Contains(t, refRow, "--store postgres://")
}

// TestREADMECommandLines: every conform command line of the shell blocks
// of README.md and steps/README.md names a command conform has, with flags
// it takes and the arguments it accepts, so the first screen runs as
// written.
func TestREADMECommandLines(t *testing.T) {
	for _, file := range []string{"../../README.md", "../../steps/README.md"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		lines := 0
		for _, block := range shellBlocks(string(b)) {
			for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
				words := shellWords(line)
				if len(words) == 0 || words[0] != "conform" {
					continue
				}
				lines++
				t.Run(filepath.Base(file)+": "+strings.Join(words[1:], " "), func(t *testing.T) {
					cmd, rest, err := newRootCmd().Find(words[1:])
					require.NoError(t, err)
					require.NotEqual(t, "conform", cmd.Name(), "no such command")
					require.NoError(t, cmd.ParseFlags(rest))
					assert.NoError(t, cmd.ValidateArgs(cmd.Flags().Args()))
				})
			}
		}
		assert.Positive(t, lines, "%s has conform command lines", file)
	}
}

// shellBlocks are the bodies of the ```sh blocks of a Markdown text.
func shellBlocks(md string) []string {
	var out []string
	for _, part := range strings.Split(md, "```sh\n")[1:] {
		body, _, _ := strings.Cut(part, "\n```")
		out = append(out, body)
	}
	return out
}

// shellWords splits a command line as the shell would for these simple
// lines: words by blanks, '…' and "…" quoting, a # starting a comment.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '#' && !inWord:
			return words
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestExploreREADMETally: steps/explore/README.md tells the suite's verdict
// on the explore faults once, and that tally is the count of its table's
// suite column, whose rows are the catalog's faults.
func TestExploreREADMETally(t *testing.T) {
	b, err := os.ReadFile("../../steps/explore/README.md")
	require.NoError(t, err)
	readme := string(b)
	tallies := regexp.MustCompile(`fails (\d+), warns on (\d+) and misses (\d+)`).FindAllStringSubmatch(readme, -1)
	require.Len(t, tallies, 1, "one tally of the suite on the explore faults")
	counts := map[string]int{}
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| ([a-z0-9-]+) \\| (?:FAIL|WARN) \\|.*\\| ([A-Za-z]+)[^|]* \\|$").FindAllStringSubmatch(readme, -1) {
		rows = append(rows, m[1])
		counts[m[2]]++
	}
	var names []string
	for _, f := range faults.ExploreCatalog() {
		names = append(names, f.Name)
	}
	assert.ElementsMatch(t, names, rows, "the table's rows are the explore catalog")
	assert.Contains(t, readme, fmt.Sprintf("holds %d faults", len(names)))
	want := []string{strconv.Itoa(counts["FAIL"]), strconv.Itoa(counts["WARN"]), strconv.Itoa(counts["missed"])}
	assert.Equal(t, want, tallies[0][1:], "the tally (fails, warns on, misses) counts the table's suite column")
}

// TestStepsCommand: conform steps lists the whole step vocabulary, by
// vocabulary file, as a feature writes it.
func TestStepsCommand(t *testing.T) {
	code, out, errOut := run(t, "", "steps")
	require.Equal(t, exitOK, code, errOut)
	n := 0
	for _, g := range steps.Vocabulary() {
		assert.Contains(t, out, "# "+g.Name+"\n")
		n += len(g.Steps)
	}
	for _, want := range []string{
		"  I am the (platform|merchant|other application) user\n",
		"  I authorize N cents\n",
		`  I create a card for the buyer whose security code is "…"` + "\n",
		fmt.Sprintf("\n%d steps\n", n),
	} {
		assert.Contains(t, out, want)
	}
	assert.Greater(t, n, 150)
}
