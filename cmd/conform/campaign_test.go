package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/reference/faults"
	"github.com/conform-kit/conform/reference/pgtest"
	"github.com/conform-kit/conform/steps/explore/campaign"
)

// TestCampaignWorkersShareAndSurviveAKill: three processes of the built
// binary on one campaign of 4 units, each against its own copy of a faulted
// reference. B takes a unit and is killed (SIGKILL) in the middle of it;
// A and C join and each takes a unit before either may finish one (their
// targets hold every request until both do). The unit B held is taken again
// after its lease, every unit is written once (by A or C, none by B), and
// the campaign's findings, counts and sequences equal a campaign of the same
// seed run by one process from start to end.
func TestCampaignWorkersShareAndSurviveAKill(t *testing.T) {
	bin := conformBinary(t)
	dsn := pgtest.Start(t).NewDatabase(t, "campaign")
	db := connect(t, dsn)
	const fault = "bin-wrong" // a card's bin read back wrong: nearly every sequence makes a card
	args := func(name, cfg string) []string {
		return []string{"--campaign", dsn, "--campaign-name", name, "--seed", "2", "--units", "4", "--unit-size", "4",
			"--max-steps", "12", "--workers", "2", "--lease", "2s", "--config", cfg}
	}
	gateB, gateA, gateC := newGate(), newGate(), newGate()
	cfgB, cfgA, cfgC := serveGated(t, gateB, fault), serveGated(t, gateA, fault), serveGated(t, gateC, fault)
	running := func() int {
		var n int
		require.NoError(t, db.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state = 'running'`).Scan(&n))
		return n
	}

	gateB.hold()
	b := startWorker(t, bin, args("shared", cfgB)...)
	eventually(t, time.Minute, "B holds a unit, its first request held", func() bool { return gateB.waiting.Load() > 0 })
	require.Equal(t, 1, running(), "B runs one unit")
	var held []string
	eventually(t, time.Minute, "B names the unit it started", func() bool {
		held = regexp.MustCompile(`unit (\d+) \(sequences`).FindStringSubmatch(b.out.String())
		return held != nil
	})
	heldUnit, _ := strconv.Atoi(held[1])
	require.NoError(t, b.cmd.Process.Signal(syscall.SIGKILL))
	b.wait(t, 30*time.Second)
	gateB.release()

	gateA.hold()
	gateC.hold()
	a := startWorker(t, bin, args("shared", cfgA)...)
	c := startWorker(t, bin, args("shared", cfgC)...)
	eventually(t, time.Minute, "A and C each hold a unit", func() bool { return gateA.waiting.Load() > 0 && gateC.waiting.Load() > 0 })
	gateA.release()
	gateC.release()
	assert.Equal(t, exitFailed, a.wait(t, 2*time.Minute), "A reports the campaign's FAIL: %s", a.out.String())
	assert.Equal(t, exitFailed, c.wait(t, 2*time.Minute), "C reports the campaign's FAIL: %s", c.out.String())

	rows, err := db.Query(context.Background(), `SELECT unit, worker, attempt FROM conform_campaign_unit WHERE campaign = 'shared' ORDER BY unit`)
	require.NoError(t, err)
	var units []int
	byWorker := map[int]int{}
	for rows.Next() {
		var unit, attempt int
		var worker string
		require.NoError(t, rows.Scan(&unit, &worker, &attempt))
		units = append(units, unit)
		p, _ := strconv.Atoi(worker[strings.LastIndex(worker, "/")+1:])
		byWorker[p]++
		if unit == heldUnit {
			assert.GreaterOrEqual(t, attempt, 2, "the unit B held was taken again")
		}
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []int{0, 1, 2, 3}, units, "every unit written once")
	assert.Zero(t, byWorker[b.cmd.Process.Pid], "B, killed, wrote nothing")
	assert.Positive(t, byWorker[a.cmd.Process.Pid], "A did a unit")
	assert.Positive(t, byWorker[c.cmd.Process.Pid], "C did a unit")
	var left int
	require.NoError(t, db.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state <> 'completed'`).Scan(&left))
	assert.Zero(t, left, "no unit's job left")

	single := startWorker(t, bin, args("single", serveGated(t, newGate(), fault))...)
	assert.Equal(t, exitFailed, single.wait(t, 2*time.Minute), "one process: %s", single.out.String())
	store, err := campaign.Open(context.Background(), dsn)
	require.NoError(t, err)
	defer store.Close()
	shared, err := store.Report(context.Background(), "shared")
	require.NoError(t, err)
	alone, err := store.Report(context.Background(), "single")
	require.NoError(t, err)
	require.NotEmpty(t, alone.Findings, "seed 2 finds the fault in 16 sequences")
	assert.Equal(t, totals(alone), totals(shared), "three processes and a kill find what one process finds")
	assert.Equal(t, 16, shared.Sequences)
	assert.Equal(t, 4, shared.Done)
}

// TestCampaignBaselineReportsOnlyNewFindings: a baseline campaign against
// a reference with one fault and a campaign of the same seed against one
// with a second fault: --report --baseline names only the second fault's
// fingerprints and exits 1; a campaign against itself as baseline exits 0.
// The baseline is stopped by its --time first and continued by another
// process.
// A campaign past its retention is deleted with its units and findings.
func TestCampaignBaselineReportsOnlyNewFindings(t *testing.T) {
	bin := conformBinary(t)
	dsn := pgtest.Start(t).NewDatabase(t, "baseline")
	args := func(name, cfg string) []string {
		return []string{"--campaign", dsn, "--campaign-name", name, "--seed", "2", "--units", "4", "--unit-size", "4", "--max-steps", "12", "--workers", "2", "--config", cfg}
	}
	baseCfg := serveGated(t, newGate(), "crash-on-null-line2")
	// Stopped by its --time before the campaign is done, then continued.
	stopped := startWorker(t, bin, append(args("base", baseCfg), "--time", "1ms")...)
	stopped.wait(t, 2*time.Minute)
	assert.Contains(t, stopped.out.String(), "the campaign is not finished: join it again to go on")
	assert.Regexp(t, `campaign base: seed 2, [0-3] of 4 units done`, stopped.out.String())
	base := startWorker(t, bin, args("base", baseCfg)...)
	require.Equal(t, exitFailed, base.wait(t, 2*time.Minute), "%s", base.out.String())
	assert.Contains(t, base.out.String(), "campaign base: seed 2, 4 of 4 units done")
	pr := startWorker(t, bin, args("pr", serveGated(t, newGate(), "crash-on-null-line2", "bin-wrong"))...)
	require.Equal(t, exitFailed, pr.wait(t, 2*time.Minute), "%s", pr.out.String())

	store, err := campaign.Open(context.Background(), dsn)
	require.NoError(t, err)
	defer store.Close()
	baseRep, err := store.Report(context.Background(), "base")
	require.NoError(t, err)
	prRep, err := store.Report(context.Background(), "pr")
	require.NoError(t, err)
	require.NotEmpty(t, baseRep.Findings, "the baseline's fault is found")
	fresh := prRep.Without(baseRep)
	require.NotEmpty(t, fresh.Findings, "the second fault is found")
	for _, f := range fresh.Findings {
		assert.Equal(t, "computed field", f.Check, "only the second fault's findings are new: %s", f.Message)
	}

	results := filepath.Join(t.TempDir(), "pr.json")
	code, out, errOut := run(t, "", "explore", "--campaign", dsn, "--campaign-name", "pr", "--report", "--baseline", "base", "--format", "json:"+results)
	require.Equal(t, exitFailed, code, "%s %s", out, errOut)
	assert.Contains(t, out, fmt.Sprintf("%d findings new, %d the baseline has", len(fresh.Findings), len(prRep.Findings)-len(fresh.Findings)))
	for _, fp := range fresh.Fingerprints() {
		assert.Contains(t, out, fp)
	}
	for _, fp := range baseRep.Fingerprints() {
		assert.NotContains(t, out, fp, "a fingerprint the baseline has is not reported")
	}
	data, err := os.ReadFile(results)
	require.NoError(t, err)
	var file struct {
		Scenarios []struct {
			Name string `json:"name"`
		} `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	assert.Len(t, file.Scenarios, len(fresh.Findings), "the results file holds the new findings only")

	code, out, errOut = run(t, "", "explore", "--campaign", dsn, "--campaign-name", "base", "--report", "--baseline", "base")
	assert.Equal(t, exitOK, code, "nothing new against itself: %s %s", out, errOut)
	assert.Contains(t, out, "0 findings new")
	code, _, errOut = run(t, "", "explore", "--campaign", dsn, "--campaign-name", "absent", "--report")
	assert.Equal(t, exitUsage, code, "an unknown campaign: %s", errOut)

	db := connect(t, dsn)
	_, err = db.Exec(context.Background(), `UPDATE conform_campaign SET expires_at = now() - interval '1 second' WHERE name = 'base'`)
	require.NoError(t, err)
	n, err := store.Expire(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	var kept int
	require.NoError(t, db.QueryRow(context.Background(), `SELECT count(*) FROM conform_campaign_finding WHERE campaign = 'base'`).Scan(&kept))
	assert.Zero(t, kept, "an expired campaign's findings go with it")
	_, err = store.Report(context.Background(), "pr")
	assert.NoError(t, err, "a campaign within its retention stays")
}

// totals are a campaign report's figures that must not depend on how many
// processes ran it: each fingerprint's count, and the sequences.
func totals(r campaign.Report) map[string]int {
	out := map[string]int{"sequences": r.Sequences}
	for _, f := range r.Findings {
		out[campaign.Fingerprint(f)+" "+campaign.Cause(f)] = f.Occurrences
	}
	return out
}

// gate holds a target's requests while it is closed.
type gate struct {
	mu      sync.Mutex
	open    chan struct{}
	waiting atomic.Int64 // requests that found it closed
}

func newGate() *gate {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = make(chan struct{})
}

func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.open)
}

func (g *gate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		open := g.open
		g.mu.Unlock()
		select {
		case <-open:
		default:
			g.waiting.Add(1)
			select {
			case <-open:
			case <-r.Context().Done():
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// serveGated serves the reference with the named faults behind g and
// returns the path of its config file.
func serveGated(t *testing.T, g *gate, faultNames ...string) string {
	t.Helper()
	ref, handler, err := faults.Serve(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001}, faultNames)
	require.NoError(t, err)
	srv := httptest.NewServer(g.wrap(handler))
	t.Cleanup(func() {
		srv.Close()
		_ = ref.Close()
	})
	raw, err := json.Marshal(suiteConfig(srv.URL, ref.Seeded()))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "conform.json")
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	return path
}

// worker is a conform explore --campaign process.
type worker struct {
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{}
	code   int
}

func startWorker(t *testing.T, bin string, args ...string) *worker {
	t.Helper()
	w := &worker{cmd: exec.Command(bin, append([]string{"explore"}, args...)...), out: &syncBuffer{}, exited: make(chan struct{})}
	w.cmd.Stdout, w.cmd.Stderr = w.out, w.out
	require.NoError(t, w.cmd.Start())
	go func() {
		_ = w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		close(w.exited)
	}()
	t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.exited
	})
	return w
}

// wait is the process's exit code once it exits.
func (w *worker) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-w.exited:
		return w.code
	case <-time.After(limit):
		t.Fatalf("conform explore did not exit within %s: %s", limit, w.out.String())
		return 0
	}
}
