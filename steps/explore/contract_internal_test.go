package explore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/steps/report"
	"github.com/conform-kit/conform/validate"
	"github.com/conform-kit/conform/validate/judging"
)

func testContract(t *testing.T) *contract {
	t.Helper()
	j, err := judging.Default()
	require.NoError(t, err)
	c, err := newContract(j, 100)
	require.NoError(t, err)
	return c
}

// leafOf finds a leaf of a request schema by path.
func leafOf(t *testing.T, c *contract, schema, path string) *shape {
	t.Helper()
	s := c.schemas[schema]
	if schema == queryName {
		s = c.query
	}
	require.NotNil(t, s, schema)
	for _, l := range append(s.nodes(), s) {
		if l.Path == path {
			return l
		}
	}
	t.Fatalf("%s has no node %s", schema, path)
	return nil
}

// TestContractReadsKeywords: the nodes carry the keywords of the schemas,
// $ref and the create variant's narrower bounds merged in, an allOf's
// conditions each read.
func TestContractReadsKeywords(t *testing.T) {
	c := testContract(t)
	tests := []struct {
		schema, path string
		check        func(t *testing.T, s *shape)
	}{
		{"payment_instrument_create", "address.line1", func(t *testing.T, s *shape) { assert.Equal(t, 35, s.MaxLength) }},
		{"payment_instrument_create", "address.line2", func(t *testing.T, s *shape) { assert.True(t, s.Nullable) }},
		{"authorization_create", "additional_purchase_data.item_data[].item_description", func(t *testing.T, s *shape) {
			assert.Equal(t, 25, s.MaxLength, "the create variant narrows the shared item_description")
			assert.True(t, s.Required)
		}},
		{"authorization_capture", "additional_purchase_data.item_data[].item_description", func(t *testing.T, s *shape) { assert.Equal(t, 26, s.MaxLength) }},
		{"authorization_create", "additional_purchase_data.item_data[].quantity", func(t *testing.T, s *shape) { assert.Equal(t, "1", s.Min.String()) }},
		{"authorization_create", "amount", func(t *testing.T, s *shape) { assert.Equal(t, "9223372036854775807", s.Max.String()) }},
		{"authorization_create", "additional_purchase_data.order_date.month", func(t *testing.T, s *shape) { assert.Equal(t, "12", s.Max.String()) }},
		{"subscription_schedule_create", "period_offset.month", func(t *testing.T, s *shape) { assert.True(t, s.Nullable) }},
		{"file_create", "type", func(t *testing.T, s *shape) { assert.Contains(t, s.Enum, any("TAX_DOCUMENT")) }},
		{"webhook_create", "enabled_events", func(t *testing.T, s *shape) { assert.NotNil(t, s.Items) }},
		{"webhook_create", "tags", func(t *testing.T, s *shape) { assert.NotNil(t, s.Values) }},
		{"webhook_create", "authentication", func(t *testing.T, s *shape) {
			require.Len(t, s.Conds, 2, "each allOf member's if/then is a condition")
			assert.Equal(t, cond{Prop: "type", Value: "BASIC", Required: []string{"basic"}, Nested: map[string][]string{"basic": {"password", "username"}}}, s.Conds[0])
			assert.Equal(t, cond{Prop: "type", Value: "BEARER", Required: []string{"bearer"}, Nested: map[string][]string{"bearer": {"token"}}}, s.Conds[1])
		}},
		{"webhook_create", "authentication.type", func(t *testing.T, s *shape) { assert.Equal(t, []any{"BASIC", "BEARER"}, s.Examples) }},
		{"subscription_amount_create", "fee_amount_data", func(t *testing.T, s *shape) {
			assert.True(t, s.Required, "the one anyOf branch beside a required list applies")
		}},
		{"subscription_enrollment_create", "started_at", func(t *testing.T, s *shape) { assert.Equal(t, "date-time", s.Format) }},
		{queryName, "limit", func(t *testing.T, s *shape) {
			assert.Equal(t, "1", s.Min.String())
			assert.Equal(t, "100", s.Max.String())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.schema+"/"+tt.path, func(t *testing.T) { tt.check(t, leafOf(t, c, tt.schema, tt.path)) })
	}
}

// TestLeafHits: a value reaches the boundaries it sits on, and no other.
func TestLeafHits(t *testing.T) {
	c := testContract(t)
	tests := []struct {
		schema, path string
		value        string // JSON
		want         []string
	}{
		{"payment_instrument_create", "address.city", `"aaaaaaaaaaaaaaaaaaaa"`, []string{"maxLength 20: at"}},
		{"payment_instrument_create", "address.city", `"ééééééééééééééééééé😀"`, []string{"maxLength 20: at, multi-byte"}},
		{"payment_instrument_create", "address.city", `"aaaaaaaaaaaaaaaaaaaaa"`, []string{"maxLength 20: one past"}},
		{"payment_instrument_create", "address.city", `"Paris"`, nil},
		{"payment_instrument_create", "address.postal_code", `""`, []string{"minLength 1: one short"}},
		{"payment_instrument_create", "expiration_month", `0`, []string{"minimum 1: one below"}},
		{"payment_instrument_create", "expiration_month", `12`, []string{"maximum 12: at"}},
		{"authorization_create", "amount", `9223372036854775808`, []string{"maximum 9223372036854775807: one past"}},
		{"authorization_create", "currency", `"USD"`, []string{"pattern: match"}},
		{"authorization_create", "currency", `"usd"`, []string{"pattern: miss"}},
		{"file_create", "type", `"CAT"`, []string{"enum: outside"}},
		{"payment_instrument_create", "address.line2", `null`, []string{"null"}},
		{"webhook_create", "enabled_events", `[]`, []string{"items: 0"}},
		{"webhook_create", "tags", `{"a":"b","c":"d"}`, []string{"entries: several"}},
		{"subscription_enrollment_create", "started_at", `"2030-01-01T00:00:00Z"`, []string{"pattern: miss", "format date-time: valid"}},
		{"merchant_update", "level_two_level_three_data_enabled", `false`, []string{"false"}},
	}
	for _, tt := range tests {
		t.Run(tt.path+"="+tt.value, func(t *testing.T) {
			var v any
			require.NoError(t, decodeNumber([]byte(tt.value), &v))
			got := leafOf(t, c, tt.schema, tt.path).hits(v)
			assert.ElementsMatch(t, tt.want, got)
			for _, h := range got {
				assert.Contains(t, leafOf(t, c, tt.schema, tt.path).boundaries(), h, "a hit is a defined boundary")
			}
		})
	}
}

func decodeNumber(data []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// TestValidDrawsAreValid: a body drawn without a mutation passes its
// request schema (ids stand for ids of their form), for every operation
// with a JSON body, over many draws.
func TestValidDrawsAreValid(t *testing.T) {
	c := testContract(t)
	for op, name := range c.ops {
		t.Run(op, func(t *testing.T) {
			bad := 0
			for i := range 300 {
				g := &generator{c: newChoices(uint64(i)), con: c}
				// What the actions decide: one merchant field, one amount form.
				var fixes map[string]func() any
				switch name {
				case "authorization_create":
					fixes = map[string]func() any{"merchant": fixed(absent), "merchant_identity": fixed("{fixture:merchant_identity}")}
				case "subscription_amount_create", "subscription_amount_update":
					fixes = map[string]func() any{"amount": fixed(absent)}
				}
				doc, _ := g.drawNode(c.schemas[name], fixes).(map[string]any)
				if err := c.check(op, c.schemas[name], doc); err != nil {
					if bad++; bad <= 3 {
						t.Errorf("draw %d of %s refused: %s\n%s", i, name, violation(err), encodeBody(doc))
					}
				}
			}
		})
	}
}

// TestCoverageCountsBodiesAndQueries: a body sent marks its leaves and the
// boundaries its values sit on; a list's query marks the list query's; the
// answers count per operation.
func TestCoverageCountsBodiesAndQueries(t *testing.T) {
	c := testContract(t)
	cv := newCoverage(c)
	cv.add(Step{Op: "payment_instruments.create"}, Exchange{Status: 201,
		Body: `{"type":"PAYMENT_CARD","address":{"postal_code":"1234567","city":"aaaaaaaaaaaaaaaaaaaaa"},"tags":{}}`})
	cv.add(Step{Op: "webhooks.list"}, Exchange{Status: 422, Path: "/webhooks?limit=0&offset=0"})
	all := func(validate.Operation) bool { return true }
	ops, schemas := cv.rows(c.v.Operations(), all, func(op validate.Operation) bool { return op.ID == "webhooks.get" })
	byOp := map[string]report.ExploredOp{}
	for _, o := range ops {
		byOp[o.ID] = o
	}
	assert.Equal(t, report.ExploredOp{ID: "payment_instruments.create", Accepted: 1}, byOp["payment_instruments.create"])
	assert.Equal(t, report.ExploredOp{ID: "webhooks.list", Refused: 1}, byOp["webhooks.list"])
	assert.Equal(t, report.ExploredOp{ID: "webhooks.get"}, byOp["webhooks.get"], "reachable, never requested")
	row := func(name string) report.ExploredSchema {
		for _, s := range schemas {
			if s.Schema == name {
				return s
			}
		}
		t.Fatalf("no row %s", name)
		return report.ExploredSchema{}
	}
	card := row("payment_instrument_create")
	assert.Equal(t, 4, card.LeavesSent, "type, postal_code, city, tags")
	assert.NotContains(t, card.Missed, "address.city: maxLength 20: one past")
	assert.Contains(t, card.Missed, "address.city: maxLength 20: at")
	assert.Contains(t, card.Missed, "name: never sent")
	q := row(queryName)
	assert.Equal(t, 2, q.LeavesSent)
	assert.NotContains(t, q.Missed, "limit: minimum 1: one below")
	assert.Contains(t, q.Missed, "limit: minimum 1: at")
	assert.Equal(t, 0, row("webhook_create").LeavesSent)
}

// TestCoverageNotOffered: an operation the profile declares absent, and an
// extension whose every request was answered as an unknown route, are
// listed as not offered, and the schemas only they take count in no total;
// an operation the spec names is never taken for not offered, whatever it
// answered.
func TestCoverageNotOffered(t *testing.T) {
	c := testContract(t)
	cv := newCoverage(c)
	cv.add(Step{Op: "balance_transfers.create"}, Exchange{Status: 404, Body: `{"amount":1}`})
	cv.add(Step{Op: "balance_transfers.create"}, Exchange{Status: 405})
	cv.add(Step{Op: "authorizations.get"}, Exchange{Status: 404})
	cv.add(Step{Op: "authorizations.get"}, Exchange{Status: 200})
	cv.add(Step{Op: "transfers.get"}, Exchange{Status: 404})
	cv.add(Step{Op: "transfers.get"}, Exchange{Status: 422})
	cv.add(Step{Op: "payment_instruments.get"}, Exchange{Status: 404})
	offered := func(op validate.Operation) bool { return op.ID != "subscription_schedules.create" }
	ops, schemas := cv.rows(c.v.Operations(), offered, func(validate.Operation) bool { return true })
	byOp := map[string]report.ExploredOp{}
	for _, o := range ops {
		byOp[o.ID] = o
	}
	for _, tc := range []struct {
		op, why string
	}{
		{"subscription_schedules.create", notOfferedDeclared},
		{"balance_transfers.create", notOfferedAnswered},
		{"authorizations.get", ""},      // answered 2xx once: offered
		{"transfers.get", ""},           // a 422 is not an unknown route
		{"payment_instruments.get", ""}, // the spec names it: a 404 is a refusal
		{"webhooks.get", ""},
	} {
		assert.Equal(t, tc.why, byOp[tc.op].NotOffered, tc.op)
	}
	assert.Equal(t, 2, byOp["balance_transfers.create"].Refused, "a row not offered keeps its answers")
	notOffered := map[string]bool{}
	for _, s := range schemas {
		notOffered[s.Schema] = s.NotOffered
	}
	assert.True(t, notOffered["subscription_schedule_create"], "only subscription_schedules.create takes it")
	assert.True(t, notOffered["balance_transfer_create"], "only balance_transfers.create takes it")
	assert.False(t, notOffered["payment_instrument_create"])
	assert.False(t, notOffered[queryName])
	totals := report.ExploredTotals(schemas)
	all := 0
	for _, s := range schemas {
		all += s.Boundaries
	}
	var absent int
	for _, s := range schemas {
		if s.NotOffered {
			absent += s.Boundaries
		}
	}
	assert.Positive(t, absent)
	assert.Equal(t, all-absent, totals.Boundaries, "the schemas not offered are out of the denominator")
	n := report.CountExploredOps(ops)
	assert.ElementsMatch(t, []string{"subscription_schedules.create", "balance_transfers.create"}, n.NotOffered)
	assert.Equal(t, len(ops)-2, n.Offered)
}

// TestStatedBoundFromTheData: a bound is a stated limit only where
// judging.json does not list it among its schema's assumed rules: a card
// line1's 35 characters (§8) is, a sale amount's largest value (the
// reference's 2^63−1) is not; a field sent at a stated maxLength is named
// at the limit.
func TestStatedBoundFromTheData(t *testing.T) {
	con := testContract(t)
	for _, tc := range []struct {
		schema, ptr, rule string
		want              bool
	}{
		{"payment_instrument_create", "/address/line1", "maxLength", true},
		{"transfer_create", "/additional_purchase_data/item_data/0/commodity_code", "maxLength", true},
		{"transfer_create", "/amount", "maximum", false},
		{"authorization_capture", "/fee", "maximum", false},
	} {
		t.Run(tc.schema+tc.ptr, func(t *testing.T) {
			assert.Equal(t, tc.want, con.statedBound(tc.schema, tc.ptr, tc.rule))
		})
	}
	doc := map[string]any{"address": map[string]any{"line1": strings.Repeat("a", 35), "city": "x"}}
	assert.Equal(t, []string{"line1"}, con.atLimit("payment_instruments.create", doc))
}
