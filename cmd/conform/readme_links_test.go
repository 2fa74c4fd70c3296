package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// markdownLink is a Markdown link or image: its target up to a blank, a
// closing parenthesis or a title.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestREADMELinksResolve: every relative link of every README.md and
// BENCHMARKS.md of the repository names a file or folder that exists, and a
// link to a section (`file.md#section`, `#section`) names a heading of that
// file, as GitHub writes its anchor. Links out (http, https, mailto) are not
// followed.
func TestREADMELinksResolve(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	var docs []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (d.Name() == "README.md" || d.Name() == "BENCHMARKS.md") {
			docs = append(docs, path)
		}
		return nil
	}))
	require.NotEmpty(t, docs)
	anchors := map[string]map[string]bool{}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, doc)
		links := 0
		for _, target := range linkTargets(string(b)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			file, anchor, _ := strings.Cut(target, "#")
			dest := doc
			if file != "" {
				dest = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
				if !assert.True(t, strings.HasPrefix(dest, root+string(filepath.Separator)) || dest == root, "%s: %s leaves the repository", rel, target) {
					continue
				}
				if _, err := os.Stat(dest); !assert.NoError(t, err, "%s: the link %s names nothing in the repository", rel, target) {
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !assert.True(t, strings.HasSuffix(dest, ".md"), "%s: %s: a section of a file that is not Markdown", rel, target) {
				continue
			}
			if anchors[dest] == nil {
				text, err := os.ReadFile(dest)
				require.NoError(t, err)
				anchors[dest] = headingAnchors(string(text))
			}
			assert.True(t, anchors[dest][anchor], "%s: the link %s names no heading of %s", rel, target, filepath.Base(dest))
		}
		t.Logf("%s: %d relative links", rel, links)
	}
}

// linkTargets are the targets of the links of a Markdown text outside its
// fenced code blocks and code spans.
func linkTargets(md string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range markdownLink.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// stripCodeSpans removes the `…` spans of a line.
func stripCodeSpans(line string) string {
	var b strings.Builder
	in := false
	for _, r := range line {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headingAnchors are the anchors GitHub gives the headings of a Markdown
// text: lower case, punctuation but hyphens and underscores dropped, each
// space a hyphen, a repeated anchor numbered -1, -2, ….
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// readmeCitation is a README section a comment or a schema's $comment
// cites: `features/README.md, "Behaviour"`, `the README's "…"`.
var readmeCitation = regexp.MustCompile(`([\w/.-]*README\.md)(?:,|'s)? "([^"]+)"|README's "([^"]+)"`)

// TestCodeCitesREADMESectionsThatExist: every README section a Go comment or
// a schema cites by its title is a heading of that README (a path with a
// folder is from the repository's root, a bare README.md or "the README's"
// the cited file's own folder).
func TestCodeCitesREADMESectionsThatExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	comment := regexp.MustCompile(`\n\s*//\s?`)
	titles := map[string]map[string]bool{}
	cited := 0
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".json")) || d.Name() == "readme_links_test.go" {
			return nil // this file's patterns are no citations
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := strings.ReplaceAll(comment.ReplaceAllString(string(b), " "), `\"`, `"`)
		rel, _ := filepath.Rel(root, path)
		for _, m := range readmeCitation.FindAllStringSubmatch(text, -1) {
			readme, section := filepath.Join(filepath.Dir(path), "README.md"), m[3]
			if m[1] != "" {
				section = m[2]
				if strings.Contains(m[1], "/") {
					readme = filepath.Join(root, filepath.FromSlash(m[1]))
				}
			}
			cited++
			if titles[readme] == nil {
				md, err := os.ReadFile(readme)
				if !assert.NoError(t, err, "%s cites %q of a README that does not exist", rel, section) {
					continue
				}
				titles[readme] = headingTitles(string(md))
			}
			assert.True(t, titles[readme][strings.ToLower(section)], "%s cites the section %q, which %s does not have", rel, section, readme)
		}
		return nil
	}))
	assert.Positive(t, cited, "the code cites README sections")
}

// headingTitles are the titles of the headings of a Markdown text, in
// lower case.
func headingTitles(md string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced && strings.HasPrefix(line, "#") {
			out[strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
	}
	return out
}
