package explore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestUnansweredWriteUnsettlesItsKind: a write the target never answered
// may still land, so its kind's lists are unsettled for unsettledFor (the
// checks comparing two reads of them judge nothing meanwhile); other
// kinds stay settled.
func TestUnansweredWriteUnsettlesItsKind(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	k := &kindPhases{now: func() time.Time { return at }}
	for _, tc := range []struct {
		name    string
		advance time.Duration
		note    []string
		kind    string
		want    bool
	}{
		{"nothing unanswered yet", 0, nil, "files", true},
		{"a file create unanswered", 0, []string{"files"}, "files", false},
		{"another kind", 0, nil, "webhooks", true},
		{"a moment later", unsettledFor - time.Second, nil, "files", false},
		{"long enough later", time.Second, nil, "files", true},
		{"a capture unanswered unsettles the transfers too", 0, writeKinds(Step{Op: "authorizations.capture", Path: "/authorizations/AU1"}), "transfers", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at = at.Add(tc.advance)
			k.noteUnanswered(tc.note...)
			assert.Equal(t, tc.want, k.settled(tc.kind))
		})
	}
}
