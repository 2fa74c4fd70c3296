package judging

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/conform-kit/conform/schemas"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/internal/jsondoc"
	"github.com/conform-kit/conform/validate/internal/schemaerr"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// assumedDir holds the overlays: for a response schema, the reference's
// exact forms beyond what the spec states, tagged with profile keys.
const assumedDir = "assumed"

// overlayURL is the base under which the overlays are compiled; nothing is
// fetched from it.
const overlayURL = "https://conform.schemas/" + assumedDir + "/"

// decode reads a JSON document with numbers as json.Number, as the
// validator does; a document that is not JSON wraps validate.ErrMalformed.
func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", validate.ErrMalformed, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: trailing data after the document", validate.ErrMalformed)
	}
	return doc, nil
}

// profileKeyword tags an overlay constraint with its profile key; idKeyword
// names the kind of id (a key of the id prefixes table) of an id_form one.
const (
	profileKeyword = "x-profile"
	idKeyword      = "x-id"
)

// Deviation is one assumed check a document does not meet: under which
// profile key, where, what the profile declares and what the document
// shows. Observed summarises rather than quotes where that groups equal
// choices (ids: "21 characters of [0-9A-Za-z]"; timestamps: "3 fractional
// digits"), and never shows a credential.
type Deviation struct {
	Key      string `json:"key"`
	Pointer  string `json:"pointer"`
	Expected string `json:"expected"`
	Observed string `json:"observed"`
}

// String renders "id_form at /id: expected [0-9A-Za-z]{22}, observed 21 characters of [0-9A-Za-z]".
func (d Deviation) String() string {
	ptr := d.Pointer
	if ptr == "" {
		ptr = "(document)"
	}
	return fmt.Sprintf("%s at %s: expected %s, observed %s", d.Key, ptr, d.Expected, d.Observed)
}

// assumedCache compiles the overlays once per distinct profile.
type assumedCache struct {
	raw  map[string]any // decoded overlays by file name ("transfer.json")
	mu   sync.Mutex
	sets map[string]*overlaySet // by the profile's JSON
}

// overlaySet is the overlays compiled for one profile.
type overlaySet struct {
	compiled map[string]*jsonschema.Schema // by schema name
	docs     map[string]any                // expanded documents by URL
}

// maxOverlaySets bounds the cache: a run uses one or two profiles.
const maxOverlaySets = 16

// newAssumed reads the overlays and checks their tags, so a broken overlay
// fails New; they compile on first use, per profile.
func newAssumed(j *Judge) (*assumedCache, error) {
	entries, err := fs.ReadDir(schemas.FS, assumedDir)
	if err != nil {
		return nil, fmt.Errorf("judging: reading %s/: %w", assumedDir, err)
	}
	c := &assumedCache{raw: map[string]any{}, sets: map[string]*overlaySet{}}
	for _, e := range entries {
		file := e.Name()
		if !strings.HasSuffix(file, ".json") {
			continue
		}
		name := strings.TrimSuffix(file, ".json")
		if !j.schemas[name] {
			return nil, fmt.Errorf("judging: %s/%s: overlay of no schema", assumedDir, file)
		}
		data, err := fs.ReadFile(schemas.FS, assumedDir+"/"+file)
		if err != nil {
			return nil, fmt.Errorf("judging: reading %s/%s: %w", assumedDir, file, err)
		}
		doc, err := decode(data)
		if err != nil {
			return nil, fmt.Errorf("judging: overlay %s: %w", file, err)
		}
		c.raw[file] = doc
	}
	for file, doc := range c.raw {
		if err := j.checkOverlayTags(doc); err != nil {
			return nil, fmt.Errorf("judging: overlay %s: %w", file, err)
		}
	}
	return c, nil
}

// checkOverlayTags checks, without compiling (overlays compile on first
// use), that every x-profile names a profile key and every x-id a kind of
// the id prefixes table.
func (j *Judge) checkOverlayTags(node any) error {
	switch n := node.(type) {
	case []any:
		for _, e := range n {
			if err := j.checkOverlayTags(e); err != nil {
				return err
			}
		}
	case map[string]any:
		if key, ok := n[profileKeyword].(string); ok {
			if _, ok := j.profile.Value(key); !ok {
				return fmt.Errorf("%s %q is no profile key", profileKeyword, key)
			}
			if key == "id_form" {
				if kind, _ := n[idKeyword].(string); j.IDPrefix(kind) == "" {
					return fmt.Errorf("%s %q is no kind of id of the id prefixes table", idKeyword, kind)
				}
			}
		}
		for _, e := range n {
			if err := j.checkOverlayTags(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// set returns the overlays compiled for p.
func (c *assumedCache) set(j *Judge, p Profile) (*overlaySet, error) {
	key, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("judging: profile: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sets[string(key)]; ok {
		return s, nil
	}
	s, err := c.compile(j, p)
	if err != nil {
		return nil, err
	}
	if len(c.sets) >= maxOverlaySets {
		clear(c.sets)
	}
	c.sets[string(key)] = s
	return s, nil
}

func (c *assumedCache) compile(j *Judge, p Profile) (*overlaySet, error) {
	s := &overlaySet{compiled: map[string]*jsonschema.Schema{}, docs: map[string]any{}}
	comp := jsonschema.NewCompiler()
	comp.Draft = jsonschema.Draft2020
	comp.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("judging: %s is not an embedded overlay", u)
	}
	base := overlayURL
	for file, raw := range c.raw {
		doc, err := j.expandOverlay(raw, p)
		if err != nil {
			return nil, fmt.Errorf("judging: overlay %s: %w", file, err)
		}
		data, err := json.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("judging: overlay %s: %w", file, err)
		}
		if err := comp.AddResource(base+file, bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("judging: adding overlay %s: %w", file, err)
		}
		s.docs[base+file] = doc
	}
	for file := range c.raw {
		name := strings.TrimSuffix(file, ".json")
		sch, err := comp.Compile(base + file)
		if err != nil {
			return nil, fmt.Errorf("judging: compiling overlay %s: %w", file, err)
		}
		s.compiled[name] = sch
	}
	return s, nil
}

// expandOverlay copies an overlay document, filling the declared choices of
// p into the constraints tagged x-profile: id_form and signing_key_form
// become patterns, timestamp_precision a pattern of that many fractional
// digits, api_key_literal a const (nothing when empty); any other tagged
// constraint is dropped when p declares its key "unchecked".
func (j *Judge) expandOverlay(node any, p Profile) (any, error) {
	switch n := node.(type) {
	case []any:
		out := make([]any, len(n))
		for i, e := range n {
			x, err := j.expandOverlay(e, p)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(n)+1)
		for k, e := range n {
			x, err := j.expandOverlay(e, p)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		key, tagged := n[profileKeyword].(string)
		if !tagged {
			return out, nil
		}
		val, ok := p.Value(key)
		if !ok {
			return nil, fmt.Errorf("%s %q is no profile key", profileKeyword, key)
		}
		switch key {
		case "id_form":
			kind, _ := n[idKeyword].(string)
			prefix := j.IDPrefix(kind)
			if prefix == "" {
				return nil, fmt.Errorf("%s %q is no kind of id of the id prefixes table", idKeyword, kind)
			}
			out["pattern"] = "^" + regexp.QuoteMeta(prefix) + "(?:" + p.IDForm + ")$"
		case "signing_key_form":
			out["pattern"] = "^(?:" + p.SigningKeyForm + ")$"
		case "timestamp_precision":
			out["pattern"] = "^" + timestampFraction(p.TimestampPrecision) + "$"
		case "api_key_literal":
			if p.APIKeyLiteral != "" {
				out["const"] = p.APIKeyLiteral
			}
		default:
			if string(val) == strconv.Quote(Unchecked) {
				return true, nil
			}
		}
		return out, nil
	}
	return node, nil
}

// ValidateNormative validates doc against the named schema when the
// schema's basis is normative (judging.json), so that its violations are
// failures; for a schema assumed as a whole (payloads the spec does not
// show) it returns nil: Assumed reports those violations as deviations.
func (j *Judge) ValidateNormative(schema string, doc []byte) error {
	if b, ok := j.table.Schemas[schema]; ok && !b.Normative() {
		if j.schemas[schema] {
			_, err := decode(doc)
			return err
		}
	}
	return j.v.Validate(schema, doc)
}

// ValidateNormativeValue is ValidateNormative for a document already
// decoded (numbers as json.Number), so a caller holding the decoded answer
// does not decode it again.
func (j *Judge) ValidateNormativeValue(schema string, doc any) error {
	if b, ok := j.table.Schemas[schema]; ok && !b.Normative() && j.schemas[schema] {
		return nil
	}
	return j.v.ValidateValue(schema, doc)
}

// Assumed checks doc against the reference's exact forms for the named
// schema, as p declares them: the overlay of schemas/assumed (ids, timestamp
// precision, the api_key literal, the signing key form) and, for a schema
// assumed as a whole, every violation of the schema itself under its key
// (unless p declares that key "unchecked"). It returns the deviations
// sorted by pointer, or an error wrapping ErrMalformed or validate.ErrUnknownSchema.
func (j *Judge) Assumed(schema string, doc []byte, p Profile) ([]Deviation, error) {
	if !j.schemas[schema] {
		return nil, fmt.Errorf("%w %q", validate.ErrUnknownSchema, schema)
	}
	val, err := decode(doc)
	if err != nil {
		return nil, err
	}
	return j.AssumedValue(schema, val, p)
}

// AssumedValue is Assumed for a document decoded with UseNumber.
func (j *Judge) AssumedValue(schema string, doc any, p Profile) ([]Deviation, error) {
	if !j.schemas[schema] {
		return nil, fmt.Errorf("%w %q", validate.ErrUnknownSchema, schema)
	}
	var out []Deviation
	if b := j.table.Schemas[schema]; !b.Normative() {
		val, _ := p.Value(b.Assumed)
		if string(val) != strconv.Quote(Unchecked) {
			err := j.v.ValidateValue(schema, doc)
			var verr *validate.Error
			switch {
			case errors.As(err, &verr):
				for _, vi := range verr.Violations {
					out = append(out, Deviation{Key: b.Assumed, Pointer: vi.Pointer,
						Expected: "schema " + schema + ": " + vi.Message, Observed: observedValue(doc, vi.Pointer)})
				}
			case err != nil:
				return nil, err
			}
		}
	}
	set, err := j.assumed.set(j, p)
	if err != nil {
		return nil, err
	}
	if sch, ok := set.compiled[schema]; ok {
		if err := sch.Validate(doc); err != nil {
			var ve *jsonschema.ValidationError
			if !errors.As(err, &ve) {
				return nil, fmt.Errorf("judging: overlay %s: %w", schema, err)
			}
			for _, leaf := range schemaerr.Leaves(ve) {
				if d, ok := j.deviation(set, doc, leaf, p); ok {
					out = append(out, d)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Deviation) int {
		return cmp.Or(cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Expected, b.Expected))
	})
	return slices.Compact(out), nil
}

// deviation explains one failing overlay keyword by the x-profile tag of the
// nearest enclosing constraint. A value that already breaks what the spec
// states (an id without its prefix, a timestamp without Z) is a normative
// violation, not a deviation: ok is false.
func (j *Judge) deviation(s *overlaySet, doc any, leaf *jsonschema.ValidationError, p Profile) (d Deviation, ok bool) {
	key, node := s.tagAt(leaf.AbsoluteKeywordLocation)
	ptr := leaf.InstanceLocation
	got, _ := jsondoc.At(doc, ptr)
	str, isString := got.(string)
	d = Deviation{Key: key, Pointer: ptr}
	switch key {
	case "id_form":
		kind, _ := node[idKeyword].(string)
		rest, hasPrefix := strings.CutPrefix(str, j.IDPrefix(kind))
		if !isString || !hasPrefix || !normativeIDRest.MatchString(rest) {
			return Deviation{}, false
		}
		d.Expected = p.IDForm
		d.Observed = shape(rest)
	case "signing_key_form":
		d.Expected = p.SigningKeyForm
		d.Observed = shape(str)
	case "timestamp_precision":
		if !isString || !normativeTimestamp.MatchString(str) {
			return Deviation{}, false
		}
		d.Expected = fmt.Sprintf("%d fractional digits", p.TimestampPrecision)
		d.Observed = precisionOf(str)
	case "api_key_literal":
		d.Expected = strconv.Quote(p.APIKeyLiteral)
		d.Observed = placeholderOrHidden(got)
	default:
		d.Expected = leaf.Message
		d.Observed = observedValue(doc, ptr)
	}
	return d, true
}

// What the spec states of ids after the prefix and of timestamps (spec
// section 2; common.json holds the same as schema).
var (
	normativeIDRest    = regexp.MustCompile(`^[0-9A-Za-z]+$`)
	normativeTimestamp = regexp.MustCompile("^" + timestampFraction(0) + "$")
)

// tagAt walks up an absolute keyword location to the nearest node tagged
// x-profile.
func (s *overlaySet) tagAt(loc string) (string, map[string]any) {
	u, frag, _ := strings.Cut(loc, "#")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	doc := s.docs[u]
	for {
		v, _ := jsondoc.At(doc, frag)
		if m, ok := v.(map[string]any); ok {
			if key, ok := m[profileKeyword].(string); ok {
				return key, m
			}
		}
		i := strings.LastIndexByte(frag, '/')
		if i < 0 {
			return "", nil
		}
		frag = frag[:i]
	}
}

// shape summarises a string as its length and character classes, so that
// ids and keys of one form group together and none is shown.
func shape(s string) string {
	var set charClasses
	var other []rune
	n := 0
	for _, r := range s {
		n++
		if !set.add(r) && !slices.Contains(other, r) {
			other = append(other, r)
		}
	}
	slices.Sort(other)
	return fmt.Sprintf("%d characters of [%s%s]", n, set, regexp.QuoteMeta(string(other)))
}

// precisionOf describes the fractional seconds of a timestamp.
func precisionOf(ts string) string {
	i := strings.IndexByte(ts, '.')
	if i < 0 {
		return "no fractional seconds"
	}
	j := i + 1
	for j < len(ts) && '0' <= ts[j] && ts[j] <= '9' {
		j++
	}
	return fmt.Sprintf("%d fractional digits", j-i-1)
}

// placeholderOrHidden shows a credential field's value only when it is a
// placeholder (<…> or a run of one masking character).
func placeholderOrHidden(v any) string {
	s, ok := v.(string)
	if !ok {
		return jsondoc.Type(v)
	}
	if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") || s != "" && strings.Trim(s, "*xX•") == "" {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("another value (%d characters, not shown)", len(s))
}

// observedValue renders the value at ptr compactly ("absent" when missing).
func observedValue(doc any, ptr string) string {
	v, ok := jsondoc.At(doc, ptr)
	if !ok {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsondoc.Type(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
