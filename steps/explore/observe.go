package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Observing the target's choices: a target without a profile first runs
// the suite, and the profile conform run --write-profile would write for
// it is the one explore judges with. Where the target chose otherwise than
// the reference (a create answered 200, a content type of its own), the
// model's answers are then compared with the target's choice, not the
// reference's, and sequences go past the first such difference.

// observe runs the observer (the suite) against the target and returns
// the profile it wrote and the keys it declares (its observed choices).
func observe(ctx context.Context, run Observer, workers int) (json.RawMessage, []string, error) {
	profile, err := run(ctx, min(workers, 8))
	if err != nil {
		return nil, nil, fmt.Errorf("explore: observe the target's choices: %w", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(profile, &keys); err != nil {
		return nil, nil, fmt.Errorf("explore: observed profile: %w", err)
	}
	var observed []string
	for k, v := range keys {
		if k == "observed_once" {
			continue
		}
		observed = append(observed, k+" "+compact(v))
	}
	slices.Sort(observed)
	return profile, observed, nil
}

// compact is a JSON value on one line.
func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return strings.TrimSpace(string(v))
	}
	return b.String()
}
