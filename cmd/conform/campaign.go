package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/steps/explore"
	"github.com/conform-kit/conform/steps/explore/campaign"
	"github.com/conform-kit/conform/steps/explore/suite"
)

// campaignOptions are the flags of conform explore --campaign.
type campaignOptions struct {
	dsn       string
	name      string
	units     int
	unitSize  int
	maxSteps  int
	lease     time.Duration
	retention time.Duration
	report    bool
	baseline  string
}

func addCampaignFlags(f *pflag.FlagSet, o *campaignOptions) {
	f.StringVar(&o.dsn, "campaign", "", "PostgreSQL URL of a campaign: make or join it and take its units with any other process (postgres://...)")
	f.StringVar(&o.name, "campaign-name", "", "the campaign's name (default seed-SEED)")
	f.IntVar(&o.units, "units", campaign.DefaultUnits, "units of a campaign made now: it runs exactly units × unit-size sequences")
	f.IntVar(&o.unitSize, "unit-size", campaign.DefaultUnitSize, "sequences of each unit of a campaign made now")
	f.IntVar(&o.maxSteps, "max-steps", campaign.DefaultMaxSteps, "actions of a sequence at most, for a campaign made now")
	f.DurationVar(&o.lease, "lease", campaign.DefaultLease, "how long a unit may be held before another process takes it again (a process that died holding it)")
	f.DurationVar(&o.retention, "retention", campaign.DefaultRetention, "how long a campaign is kept after its last unit was done")
	f.BoolVar(&o.report, "report", false, "with --campaign: take no unit, print the campaign's merged coverage and findings")
	f.StringVar(&o.baseline, "baseline", "", "with --campaign: report only the findings whose fingerprint campaign NAME does not have (exit 1 only for those)")
}

// runCampaign takes part in a campaign (or, with --report, reports it):
// cfg is the target, resolved as for a plain exploration.
func runCampaign(ctx context.Context, opts exploreOptions, cfg steps.Config, strict bool, reports []exploreReport) error {
	c := opts.campaign
	if opts.budget != 0 {
		return usageError(errors.New("explore: --budget does not apply to a campaign: its length is --units × --unit-size sequences"))
	}
	store, err := campaign.Open(ctx, c.dsn)
	if err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	defer store.Close()
	eo := explore.Options{Target: suite.Target(cfg), Model: referenceModel, Strict: strict, Workers: opts.workers}
	spec := campaign.Spec{Name: c.name, Seed: opts.seed, Units: c.units, UnitSize: c.unitSize, MaxSteps: c.maxSteps, Ops: opts.ops}
	if spec.Name == "" && spec.Seed == 0 {
		return usageError(errors.New("explore: a campaign needs --campaign-name or --seed"))
	}
	if spec.Name == "" {
		spec.Name = fmt.Sprintf("seed-%d", spec.Seed)
	}
	if !c.report {
		p, err := store.Work(ctx, spec, campaign.Options{Explore: eo, Time: opts.time, Lease: c.lease, Retention: c.retention, Log: opts.run.errOut})
		if errors.Is(err, campaign.ErrSpec) {
			return usageError(fmt.Errorf("explore: %w", err))
		}
		if err != nil {
			return fmt.Errorf("explore: %w", err)
		}
		spec = p.Spec
		state := "not finished: join it again to go on"
		if p.Finished {
			state = "finished"
		}
		fmt.Fprintf(opts.run.errOut, "campaign %s: this process did %d units; the campaign is %s\n", spec.Name, p.Done, state)
	}
	rep, err := store.Report(ctx, spec.Name)
	if errors.Is(err, campaign.ErrNotFound) {
		return usageError(fmt.Errorf("explore: %w", err))
	}
	if err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	spec = rep.Spec
	known := 0
	if c.baseline != "" {
		base, err := store.Report(ctx, c.baseline)
		if errors.Is(err, campaign.ErrNotFound) {
			return usageError(fmt.Errorf("explore: --baseline: %w", err))
		}
		if err != nil {
			return fmt.Errorf("explore: %w", err)
		}
		all := len(rep.Findings)
		rep = rep.Without(base)
		known = all - len(rep.Findings)
	}
	if eo.Target.URL == "" {
		eo.Target.URL = "campaign:" + spec.Name // a report only: nothing is sent
	}
	res, err := rep.Result(eo)
	if err != nil {
		return fmt.Errorf("explore: %w", err)
	}
	fmt.Fprintf(opts.run.out, "campaign %s: seed %d, %d of %d units done (%d sequences of at most %d steps each)\n", spec.Name, spec.Seed, rep.Done, spec.Units, spec.UnitSize, spec.MaxSteps)
	for _, f := range res.Findings {
		seen := rep.Seen[campaign.Fingerprint(f)]
		fmt.Fprintf(opts.run.out, "  %s %s %s: %d sequences, first seen %s, last %s\n", campaign.Fingerprint(f), f.Outcome, f.Check,
			f.Occurrences, seen[0].UTC().Format(time.RFC3339), seen[1].UTC().Format(time.RFC3339))
	}
	if c.baseline != "" {
		fmt.Fprintf(opts.run.out, "campaign %s against baseline %s: %d findings new, %d the baseline has\n", spec.Name, c.baseline, len(res.Findings), known)
	}
	printExplore(opts.run.out, res)
	if _, err := writeExploreReports(reports, cfg.Target, strict, res); err != nil {
		return usageError(fmt.Errorf("explore: %w", err))
	}
	if res.Failed() {
		return &exitError{code: exitFailed}
	}
	return nil
}
