package steps

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v26"
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
	// says is the scenario's description: the spec's words its checks rest
	// on, printed with a FAIL that no rule of judging.json words better.
	says     string
	selected bool
}

type stepPos struct {
	keyword string
	line    int
}

// readCatalog parses the features the way godog's runner will (same
// order, same id sequence: godog's parser of Options.FeatureContents) and
// marks the scenarios sel selects. A feature from disk that does not parse,
// or has a step no definition of defs matches, is a usage error naming
// its file and line: the kit never runs a user's feature half-understood.
func readCatalog(srcs []FeatureSource, sel func(catalogScenario) bool, defs []stepDef) (*catalog, error) {
	c := &catalog{byPickle: map[string]int{}, steps: map[string]stepPos{}}
	newID := (&messages.Incrementing{}).NewId
	var undefined []UndefinedStep
	for _, src := range srcs {
		doc, err := gherkin.ParseGherkinDocumentForLanguage(bytes.NewReader(src.data), gherkin.DefaultDialect, newID)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", ErrUsage, syntaxError(src.Name, err))
		}
		doc.Uri = src.Name
		pickles := gherkin.Pickles(*doc, src.Name, newID)
		lines := map[string]int{}
		says := map[string]string{}
		name := ""
		if doc.Feature != nil {
			name = doc.Feature.Name
			collectPositions(doc.Feature.Children, lines, c.steps)
			collectDescriptions(doc.Feature.Children, says)
		}
		for _, p := range pickles {
			if !src.Embedded {
				for _, u := range undefinedSteps(src.Name, p, c, defs) {
					if !slices.Contains(undefined, u) {
						undefined = append(undefined, u)
					}
				}
			}
			sc := catalogScenario{id: p.Id, feature: src.Name, featureName: name, name: p.Name}
			for _, t := range p.Tags {
				sc.tags = append(sc.tags, t.Name)
			}
			// The last AST node of a pickle is its example row, if any: the most precise line.
			for _, id := range p.AstNodeIds {
				if l, ok := lines[id]; ok {
					sc.line = l
				}
				if d, ok := says[id]; ok {
					sc.says = d
				}
			}
			sc.selected = sel(sc)
			c.byPickle[p.Id] = len(c.scenarios)
			c.scenarios = append(c.scenarios, sc)
		}
	}
	if len(undefined) > 0 {
		for i := range undefined {
			undefined[i].Nearest = nearestStep(undefined[i].Text, defs)
		}
		return nil, &UndefinedStepsError{Steps: undefined}
	}
	return c, nil
}

// syntaxError names the file before each "(line:column): message" of a
// Gherkin parse error.
func syntaxError(name string, err error) string {
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l != "" && l != "Parser errors:" {
			lines = append(lines, fmt.Sprintf("%s %s", name, l))
		}
	}
	return "syntax error: " + strings.Join(lines, "\n")
}

// UndefinedStep is a step of a feature from disk that no step definition
// matches: where it is, its text, and the step it nearest resembles as a
// feature writes it ("" when none is near enough to be a slip).
type UndefinedStep struct {
	File    string
	Line    int
	Text    string
	Nearest string
}

// UndefinedStepsError refuses features from disk that use steps the kit
// does not define, one line each, "file:line: undefined step: text; did
// you mean: …?". It is a usage error: errors.Is(err, ErrUsage) holds.
type UndefinedStepsError struct {
	Steps []UndefinedStep
}

func (e *UndefinedStepsError) Error() string {
	lines := make([]string, 0, len(e.Steps))
	for _, u := range e.Steps {
		line := fmt.Sprintf("%s:%d: undefined step: %s", u.File, u.Line, u.Text)
		if u.Nearest != "" {
			line += "; did you mean: " + u.Nearest + "?"
		}
		lines = append(lines, line)
	}
	return fmt.Sprintf("%v: %s (conform steps lists every step)", ErrUsage, strings.Join(lines, "\n"))
}

// Unwrap makes undefined steps a usage error.
func (e *UndefinedStepsError) Unwrap() error { return ErrUsage }

// undefinedSteps are the steps of a pickle that no definition matches.
func undefinedSteps(name string, p *messages.Pickle, c *catalog, defs []stepDef) []UndefinedStep {
	var out []UndefinedStep
	for _, st := range p.Steps {
		if slices.ContainsFunc(defs, func(d stepDef) bool { return d.re.MatchString(st.Text) }) {
			continue
		}
		line := 0
		for _, id := range st.AstNodeIds {
			if pos, ok := c.steps[id]; ok {
				line = pos.line
				break
			}
		}
		out = append(out, UndefinedStep{File: name, Line: line, Text: st.Text})
	}
	return out
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

// collectDescriptions maps each scenario's AST id to its description, in
// one line: the spec's words its checks rest on (features/README.md).
func collectDescriptions(children []*messages.FeatureChild, says map[string]string) {
	for _, ch := range children {
		switch {
		case ch.Scenario != nil:
			if d := strings.Join(strings.Fields(ch.Scenario.Description), " "); d != "" {
				says[ch.Scenario.Id] = d
			}
		case ch.Rule != nil:
			var ruleChildren []*messages.FeatureChild
			for _, rc := range ch.Rule.Children {
				ruleChildren = append(ruleChildren, &messages.FeatureChild{Scenario: rc.Scenario})
			}
			collectDescriptions(ruleChildren, says)
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
