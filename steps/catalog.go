package steps

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
)

// catalog is what the features hold, read once before a run: every scenario
// (pickle) with its feature, line and tags, and each step's keyword and line,
// so the reports can name them and the runner can select scenarios itself.
type catalog struct {
	scenarios []catalogScenario
	byPickle  map[string]int     // pickle id → index in scenarios
	steps     map[string]stepPos // AST node id of a step → keyword and line
}

type catalogScenario struct {
	id          string // pickle id
	feature     string // file name
	featureName string
	name        string
	line        int // the scenario's line, or its example row's
	tags        []string
	selected    bool
}

type stepPos struct {
	keyword string
	line    int
}

// readCatalog parses the features the way godog's runner will (same
// paths, same id sequence) and marks the scenarios sel selects.
func readCatalog(fsys fs.FS, sel func(catalogScenario) bool) (*catalog, error) {
	feats, err := godog.TestSuite{Options: &godog.Options{FS: fsys, Paths: []string{"."}}}.RetrieveFeatures()
	if err != nil {
		return nil, fmt.Errorf("%w: read features: %w", ErrUsage, err)
	}
	c := &catalog{byPickle: map[string]int{}, steps: map[string]stepPos{}}
	for _, f := range feats {
		lines := map[string]int{}
		name := ""
		if f.GherkinDocument != nil && f.GherkinDocument.Feature != nil {
			name = f.GherkinDocument.Feature.Name
			collectPositions(f.GherkinDocument.Feature.Children, lines, c.steps)
		}
		for _, p := range f.Pickles {
			sc := catalogScenario{id: p.Id, feature: f.Uri, featureName: name, name: p.Name}
			for _, t := range p.Tags {
				sc.tags = append(sc.tags, t.Name)
			}
			// The last AST node of a pickle is its example row, if any: the most precise line.
			for _, id := range p.AstNodeIds {
				if l, ok := lines[id]; ok {
					sc.line = l
				}
			}
			sc.selected = sel(sc)
			c.byPickle[p.Id] = len(c.scenarios)
			c.scenarios = append(c.scenarios, sc)
		}
	}
	return c, nil
}

// collectPositions records the line of every scenario and example row, and
// the keyword and line of every step, by AST node id.
func collectPositions(children []*messages.FeatureChild, lines map[string]int, steps map[string]stepPos) {
	addSteps := func(list []*messages.Step) {
		for _, st := range list {
			steps[st.Id] = stepPos{keyword: st.Keyword, line: int(st.Location.Line)}
		}
	}
	for _, ch := range children {
		switch {
		case ch.Background != nil:
			addSteps(ch.Background.Steps)
		case ch.Scenario != nil:
			lines[ch.Scenario.Id] = int(ch.Scenario.Location.Line)
			addSteps(ch.Scenario.Steps)
			for _, ex := range ch.Scenario.Examples {
				for _, row := range ex.TableBody {
					lines[row.Id] = int(row.Location.Line)
				}
			}
		case ch.Rule != nil:
			var ruleChildren []*messages.FeatureChild
			for _, rc := range ch.Rule.Children {
				ruleChildren = append(ruleChildren, &messages.FeatureChild{Background: rc.Background, Scenario: rc.Scenario})
			}
			collectPositions(ruleChildren, lines, steps)
		}
	}
}

// scenario returns the catalog entry of a pickle; a nil catalog knows none.
func (c *catalog) scenario(pickleID string) (catalogScenario, bool) {
	if c == nil {
		return catalogScenario{}, false
	}
	i, ok := c.byPickle[pickleID]
	if !ok {
		return catalogScenario{}, false
	}
	return c.scenarios[i], true
}

// step returns the keyword and line of a pickle step.
func (c *catalog) step(st *godog.Step) stepPos {
	if c == nil {
		return stepPos{keyword: "* "}
	}
	for _, id := range st.AstNodeIds {
		if p, ok := c.steps[id]; ok {
			return p
		}
	}
	return stepPos{keyword: "* "}
}

// selected returns the scenarios the run will judge, in file order.
func (c *catalog) selected() []catalogScenario {
	var out []catalogScenario
	for _, s := range c.scenarios {
		if s.selected {
			out = append(out, s)
		}
	}
	return out
}

// ref names a catalog scenario as the results file does.
func (s catalogScenario) ref() string { return fmt.Sprintf("%s:%d %s", s.feature, s.line, s.name) }

// clauses renders the spec-section tags, e.g. " [§4.1 §7]"; "" when there are none.
func (s catalogScenario) clauses() string { return clauses(s.tags) }

// tagLine joins the tags with spaces.
func (s catalogScenario) tagLine() string { return strings.Join(s.tags, " ") }
