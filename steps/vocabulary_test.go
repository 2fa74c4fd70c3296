package steps

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNearestStep: a step misspelt, or written with another number or
// text, is matched to the step the kit defines; one far from every step
// gets no suggestion.
func TestNearestStep(t *testing.T) {
	defs := allSteps()
	tests := []struct {
		text, want string
	}{
		{"I authorise 500 cents", "I authorize N cents"},
		{"I am the platfrom user", "I am the (platform|merchant|other application) user"},
		{`I create a card for the buyer whose security code is 12345`, `I create a card for the buyer whose security code is "…"`},
		{"the list holds at leat 3 item", "the list holds at least N item(s)"},
		{"the request is refused as unauthenticted", "the request is refused as (unauthenticated|forbidden|not found|unprocessable|declined|not acceptable|malformed|method not allowed|too large)"},
		{"I frobnicate the sale", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			assert.Equal(t, tt.want, nearestStep(tt.text, defs))
		})
	}
}

// TestUndefinedStepsError: a feature from disk with undefined steps is an
// *UndefinedStepsError, a usage error, naming each with its line and the
// nearest step; every step it suggests is one Vocabulary lists.
func TestUndefinedStepsError(t *testing.T) {
	src := FeatureSource{Name: "mine.feature", data: []byte("Feature: x\n  Scenario: y\n    Given I am the platfrom user\n    When I frobnicate the sale\n")}
	_, err := readCatalog([]FeatureSource{src}, func(catalogScenario) bool { return true }, allSteps())
	var undefined *UndefinedStepsError
	require.ErrorAs(t, err, &undefined)
	assert.True(t, errors.Is(err, ErrUsage))
	assert.Equal(t, []UndefinedStep{
		{File: "mine.feature", Line: 3, Text: "I am the platfrom user", Nearest: "I am the (platform|merchant|other application) user"},
		{File: "mine.feature", Line: 4, Text: "I frobnicate the sale"},
	}, undefined.Steps)
	assert.Contains(t, err.Error(), "mine.feature:3: undefined step: I am the platfrom user; did you mean: I am the (platform|merchant|other application) user?")
	assert.Contains(t, err.Error(), "(conform steps lists every step)")

	var all bytes.Buffer
	for _, g := range Vocabulary() {
		require.NotEmpty(t, g.Steps, g.Name)
		all.WriteString(strings.Join(g.Steps, "\n") + "\n")
	}
	for _, u := range undefined.Steps {
		if u.Nearest != "" {
			assert.Contains(t, all.String(), u.Nearest+"\n")
		}
	}
	assert.Len(t, strings.Split(strings.TrimSpace(all.String()), "\n"), len(allSteps()), "every step once")
}

// TestVocabularyIsWritable: every step Vocabulary lists, written as it
// reads (a text for "…", a number for N, a word for WORDS or NAME, each
// choice and optional letter), is a step the kit defines.
func TestVocabularyIsWritable(t *testing.T) {
	placeholder := regexp.MustCompile(`"…"|\b(N|WORDS|NAME)\b`)
	fill := map[string]string{`"…"`: `"x"`, "N": "1", "WORDS": "sale", "NAME": "amount"}
	for _, d := range allSteps() {
		for _, form := range stepForms(d.pattern, 64) {
			text := placeholder.ReplaceAllStringFunc(form, func(p string) string { return fill[p] })
			assert.True(t, d.re.MatchString(text), "%q (from %q) does not match its own pattern %s", text, readableStep(d.pattern), d.re)
		}
	}
}
