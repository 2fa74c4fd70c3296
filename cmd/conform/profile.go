package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/conform-kit/conform/validate/judging"
)

func newProfileCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Show, check and compare profiles: a target's choices where the spec is silent",
		Long: `A profile is a JSON object of profile keys: what a conformant server chose where the
spec is silent (its statuses and error codes, id form, list maximum, ...). "conform run
--profile FILE" judges the target by it; "conform run --write-profile FILE" writes the
choices a run observed. A key left out keeps the reference's default.

  conform profile show [KEY]   every key: its default, what it means, an example
  conform profile check FILE   refuse unknown keys and values, naming the nearest valid one
  conform profile diff A B     the keys where two profiles differ`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "show [KEY]",
		Short: "Print every profile key (or one) with its default, meaning and an example",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			j, err := judging.Default()
			if err != nil {
				return fmt.Errorf("profile: %w", err)
			}
			key := ""
			if len(args) == 1 {
				key = args[0]
			}
			return showProfileKeys(cmd.OutOrStdout(), j, key)
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Check a profile file: exit 0 when every key and value is one the kit judges by",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			j, err := judging.Default()
			if err != nil {
				return fmt.Errorf("profile: %w", err)
			}
			data, err := os.ReadFile(args[0])
			if err != nil {
				return usageError(fmt.Errorf("profile: %w", err))
			}
			problems := checkProfile(j, data)
			for _, p := range problems {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", args[0], p)
			}
			if len(problems) > 0 {
				return &exitError{code: exitFailed}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: a valid profile\n", args[0])
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "diff A B",
		Short: "Print the keys where two profile files differ (exit 1 when they do)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			j, err := judging.Default()
			if err != nil {
				return fmt.Errorf("profile: %w", err)
			}
			var ps [2]judging.Profile
			for i, path := range args {
				if ps[i], err = j.LoadProfile(path); err != nil {
					return usageError(fmt.Errorf("profile: %w (conform profile check %s names the nearest valid keys)", err, path))
				}
			}
			lines := diffProfiles(j, ps[0], ps[1])
			for _, l := range lines {
				fmt.Fprintln(cmd.OutOrStdout(), l)
			}
			if len(lines) > 0 {
				return &exitError{code: exitFailed}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s and %s declare the same choices\n", args[0], args[1])
			return nil
		},
	})
	return cmd
}

// showProfileKeys writes every profile key of the table (or only key): its
// default, what it decides, the values it takes and an example.
func showProfileKeys(w io.Writer, j *judging.Judge, key string) error {
	def := j.DefaultProfile()
	t := j.Table()
	found := false
	for _, k := range t.Profile {
		if key != "" && k.Key != key {
			continue
		}
		found = true
		val, _ := def.Value(k.Key)
		fmt.Fprintf(w, "%s\n", k.Key)
		fmt.Fprintf(w, "  default: %s\n", compactJSON(val))
		if len(k.Values) > 0 {
			fmt.Fprintf(w, "  values:  %s\n", strings.Join(k.Values, ", "))
		}
		fmt.Fprintf(w, "  example: {%q: %s}\n", k.Key, compactJSON(k.Example))
		fmt.Fprintf(w, "  %s\n\n", k.Description)
	}
	if !found {
		return usageError(fmt.Errorf("profile: unknown key %q%s", key, nearestHint(key, keysOf(t))))
	}
	return nil
}

// checkProfile lists what is wrong with a profile file, each with the
// nearest valid key, kind or value; none when DecodeProfile takes it.
func checkProfile(j *judging.Judge, data []byte) []string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return []string{fmt.Sprintf("not a JSON object of profile keys: %v", err)}
	}
	t := j.Table()
	keys := keysOf(t)
	var problems []string
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		k, ok := keyOf(t, key)
		if !ok {
			if why, notJudged := t.NotJudged[key]; notJudged {
				problems = append(problems, fmt.Sprintf("%s is not a profile key: %s", key, why))
				continue
			}
			problems = append(problems, fmt.Sprintf("unknown key %q%s", key, nearestHint(key, keys)))
			continue
		}
		var s string
		if len(k.Values) > 0 && json.Unmarshal(obj[key], &s) == nil && !slices.Contains(k.Values, s) {
			problems = append(problems, fmt.Sprintf("%s: %q is not one of %s%s", key, s, strings.Join(k.Values, ", "), nearestHint(s, k.Values)))
			continue
		}
		if key == "refusals" {
			if unknown := unknownKinds(t, obj[key]); len(unknown) > 0 {
				problems = append(problems, unknown...)
				continue
			}
		}
		if _, err := j.DecodeProfile(mustObject(key, obj[key])); err != nil {
			problems = append(problems, unwrapProfile(err))
		}
	}
	return problems
}

// unknownKinds names the kinds of a refusals object the table does not
// have, each with the nearest kind.
func unknownKinds(t judging.Table, refusals json.RawMessage) []string {
	var kinds map[string]json.RawMessage
	if json.Unmarshal(refusals, &kinds) != nil {
		return nil
	}
	known := slices.Sorted(maps.Keys(t.Refusals))
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		if !slices.Contains(known, kind) {
			out = append(out, fmt.Sprintf("refusals: unknown kind %q%s", kind, nearestHint(kind, known)))
		}
	}
	return out
}

// unwrapProfile is an ErrProfile error without the package's prefix.
func unwrapProfile(err error) string {
	if errors.Is(err, judging.ErrProfile) {
		return strings.TrimPrefix(err.Error(), judging.ErrProfile.Error()+": ")
	}
	return err.Error()
}

// mustObject is the profile object {key: val}.
func mustObject(key string, val json.RawMessage) []byte {
	b, _ := json.Marshal(map[string]json.RawMessage{key: val})
	return b
}

// diffProfiles lists the keys where a and b differ, in table order:
// "key: A → B".
func diffProfiles(j *judging.Judge, a, b judging.Profile) []string {
	var out []string
	for _, k := range j.Table().Profile {
		va, _ := a.Value(k.Key)
		vb, _ := b.Value(k.Key)
		if bytes.Equal(compactJSON(va), compactJSON(vb)) {
			continue
		}
		var ma, mb map[string]json.RawMessage
		if json.Unmarshal(va, &ma) != nil || json.Unmarshal(vb, &mb) != nil || ma == nil || mb == nil {
			out = append(out, fmt.Sprintf("%s: %s → %s", k.Key, compactJSON(va), compactJSON(vb)))
			continue
		}
		// A map-valued key: the entries that differ.
		both := maps.Clone(ma)
		maps.Copy(both, mb)
		for _, n := range slices.Sorted(maps.Keys(both)) {
			ea, eb := compactJSON(ma[n]), compactJSON(mb[n])
			if !bytes.Equal(ea, eb) {
				out = append(out, fmt.Sprintf("%s.%s: %s → %s", k.Key, n, orAbsent(ea), orAbsent(eb)))
			}
		}
	}
	return out
}

// orAbsent shows a missing entry as "(absent)".
func orAbsent(b []byte) []byte {
	if len(b) == 0 {
		return []byte("(absent)")
	}
	return b
}

func keysOf(t judging.Table) []string {
	out := make([]string, 0, len(t.Profile))
	for _, k := range t.Profile {
		out = append(out, k.Key)
	}
	return out
}

func keyOf(t judging.Table, key string) (judging.ProfileKey, bool) {
	for _, k := range t.Profile {
		if k.Key == key {
			return k, true
		}
	}
	return judging.ProfileKey{}, false
}

// compactJSON renders a JSON value on one line, maps sorted.
func compactJSON(raw json.RawMessage) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// nearestHint is "; did you mean X?" for the candidate nearest s by edit
// distance, when one is near enough to be a slip.
func nearestHint(s string, candidates []string) string {
	best, ok := nearest(s, candidates)
	if !ok {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// nearest is the candidate nearest s by edit distance (case ignored), when
// one is near enough to be a slip.
func nearest(s string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(3, len(s)/2) {
		return "", false
	}
	return best, true
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
