package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/conform-kit/conform/steps/explore"
)

// Report is a campaign's merged results: its units done, their sequences
// and requests, its findings by fingerprint and its merged coverage.
type Report struct {
	Spec       Spec
	Done       int // units done, of Spec.Units
	Sequences  int
	Requests   int
	Unanswered int
	// Findings are one per fingerprint, in the order of their sequences:
	// Occurrences is the fingerprint's count over every unit, Ops the
	// operations it failed on, the scenario the shortest shrunk.
	Findings []explore.Finding
	// Seen are each fingerprint's first and last time seen, by fingerprint.
	Seen     map[string][2]time.Time
	Coverage explore.Coverage
	// Took is from the campaign's making to its last unit done.
	Took time.Duration
}

// Report reads a campaign's merged results.
func (s *Store) Report(ctx context.Context, name string) (Report, error) {
	spec, err := readSpec(ctx, s.pool, name)
	if err != nil {
		return Report{}, err
	}
	r := Report{Spec: spec, Seen: map[string][2]time.Time{}}
	var created time.Time
	var last *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT c.created_at, max(u.done_at) FROM conform_campaign c LEFT JOIN conform_campaign_unit u ON u.campaign = c.name WHERE c.name = $1 GROUP BY c.created_at`, name).
		Scan(&created, &last); err != nil {
		return r, fmt.Errorf("campaign: report %s: %w", name, err)
	}
	if last != nil {
		r.Took = last.Sub(created)
	}
	rows, err := s.pool.Query(ctx, `SELECT sequences, requests, unanswered, coverage FROM conform_campaign_unit WHERE campaign = $1 ORDER BY unit`, name)
	if err != nil {
		return r, fmt.Errorf("campaign: report %s: %w", name, err)
	}
	var seqs, reqs, unans int
	var cov []byte
	_, err = pgx.ForEachRow(rows, []any{&seqs, &reqs, &unans, &cov}, func() error {
		var c explore.Coverage
		if err := json.Unmarshal(cov, &c); err != nil {
			return err
		}
		r.Done++
		r.Sequences, r.Requests, r.Unanswered = r.Sequences+seqs, r.Requests+reqs, r.Unanswered+unans
		r.Coverage.Merge(c)
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("campaign: report %s: units: %w", name, err)
	}
	rows, err = s.pool.Query(ctx, `SELECT fingerprint, count, first_seen, last_seen, ops, record FROM conform_campaign_finding WHERE campaign = $1 ORDER BY sequence, fingerprint`, name)
	if err != nil {
		return r, fmt.Errorf("campaign: report %s: %w", name, err)
	}
	var fp string
	var count int
	var first, lastSeen time.Time
	var ops []string
	var raw []byte
	_, err = pgx.ForEachRow(rows, []any{&fp, &count, &first, &lastSeen, &ops, &raw}, func() error {
		var rec explore.Record
		if err := json.Unmarshal(raw, &rec); err != nil {
			return err
		}
		f := rec.Finding()
		f.Occurrences = count
		f.Ops = append([]string{f.Op}, slices.DeleteFunc(slices.Clone(ops), func(op string) bool { return op == f.Op })...)
		r.Findings = append(r.Findings, f)
		r.Seen[fp] = [2]time.Time{first, lastSeen}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("campaign: report %s: findings: %w", name, err)
	}
	return r, nil
}

// Fingerprints are the report's findings' fingerprints, in order.
func (r Report) Fingerprints() []string {
	out := make([]string, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = Fingerprint(f)
	}
	return out
}

// Without is the report with only the findings whose fingerprint base
// does not have (a pull request's campaign against its baseline's).
func (r Report) Without(base Report) Report {
	known := map[string]bool{}
	for _, fp := range base.Fingerprints() {
		known[fp] = true
	}
	out := r
	out.Findings = slices.DeleteFunc(slices.Clone(r.Findings), func(f explore.Finding) bool { return known[Fingerprint(f)] })
	return out
}

// Result is the report as explore's Result for the console and the
// report writers (opts: the target, the model and the profile it was
// judged with, which the coverage tables need).
func (r Report) Result(opts explore.Options) (explore.Result, error) {
	opts.Seed, opts.Ops, opts.MaxSteps, opts.RunID = r.Spec.Seed, r.Spec.Ops, r.Spec.MaxSteps, r.Spec.runID(1)
	return explore.Merged(opts, r.Findings, r.Coverage, r.Sequences, r.Requests, r.Took)
}
