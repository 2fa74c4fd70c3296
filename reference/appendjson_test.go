package reference

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reflected is a record with its _links as a map: json.Marshal encodes it
// by reflection, the encoding appendJSON must reproduce byte for byte.
type reflected[R any] struct {
	Record R
	Links  links `json:"_links"`
}

// MarshalJSON encodes the record's fields and _links as one object, as the
// views embedding the record did.
func (r reflected[R]) MarshalJSON() ([]byte, error) {
	rec, err := json.Marshal(r.Record)
	if err != nil {
		return nil, err
	}
	l, err := json.Marshal(r.Links)
	if err != nil {
		return nil, err
	}
	if string(rec) == "{}" {
		return []byte(`{"_links":` + string(l) + "}"), nil
	}
	return []byte(string(rec[:len(rec)-1]) + `,"_links":` + string(l) + "}"), nil
}

func linkMap(l []namedLink) links {
	m := links{}
	for _, n := range l {
		if _, dup := m[n.name]; dup {
			panic("link " + n.name + " twice")
		}
		m[n.name] = link{strings.Join(n.href[:], "")}
	}
	return m
}

// TestAppendJSONMatchesMarshal compares each hand-written encoding with
// json.Marshal: on the records a server stores through its operations (sales,
// a disputed sale, its dispute and adjustment, a Level 3 sale, a capture,
// the seeded dispute) and on
// records holding every awkward value (escapes, HTML characters, invalid
// UTF-8, U+2028, nil and empty maps and slices, null pointers).
func TestAppendJSONMatchesMarshal(t *testing.T) {
	h := newHarness(t)
	card := h.card()
	sale := map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 1000, "currency": "USD", "tags": map[string]any{"b": "2", "a": "<&>"}}
	h.expect(h.call(h.platform(), "POST", "/transfers", sale), 201, "transfer")
	sale["amount"], sale["idempotency_id"] = 888888, "disputed"
	h.expect(h.call(h.platform(), "POST", "/transfers", sale), 201, "transfer")
	sale["amount"], sale["idempotency_id"], sale["additional_purchase_data"] = 2000, "l3", purchaseDataBody()
	h.expect(h.call(h.platform(), "POST", "/transfers", sale), 201, "transfer")
	authz := map[string]any{"source": card, "merchant": h.fx.Fixtures.Merchant, "amount": 500, "currency": "USD", "additional_purchase_data": purchaseDataBody()}
	a := h.expect(h.call(h.platform(), "POST", "/authorizations", authz), 201, "authorization").str(t, "id")
	h.expect(h.call(h.platform(), "PUT", "/authorizations/"+a, map[string]any{"capture_amount": 400}), 200, "authorization")

	odd := "a\"b\\c\n\t\x01<>&\u2028\u2029é\xff\x7f"
	now := ledger.JSONTime(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600)))
	kept := held(h.srv.memory())
	transfers, cards, auths, disputes := kept.transfers.got, kept.cards.got, kept.auths.got, kept.disputes.got
	transfers = append(transfers,
		ledger.Transfer{Meta: ledger.Meta{ID: odd, CreatedAt: now}, Tags: ledger.Tags{odd: odd, "": ""}, Source: &odd, Destination: &odd, ReadyToSettleAt: &now,
			StatementDescriptor: &odd, Messages: []string{odd, ""}, IdempotencyID: &odd, AdditionalPurchaseData: json.RawMessage(`{"a":"\u003c"}`),
			Adjustment: &ledger.Adjustment{AmountRequested: -1}},
		ledger.Transfer{Amount: -9223372036854775808, Fee: 9223372036854775807},
	)
	cards = append(cards,
		ledger.PaymentInstrument{Meta: ledger.Meta{ID: odd}, Name: odd, Tags: ledger.Tags{}, Address: ledger.Address{Line1: &odd, Line2: &odd, City: &odd, Region: &odd, PostalCode: odd, Country: &odd}},
		ledger.PaymentInstrument{},
	)
	auths = append(auths,
		ledger.Authorization{Meta: ledger.Meta{ID: odd}, Transfer: &odd, ThreeDSRedirectURL: &odd, IsVoid: true, ExpiresAt: now, IdempotencyID: &odd, Messages: []string{}, Tags: ledger.Tags{"k": odd}},
		ledger.Authorization{},
	)
	disputes = append(disputes,
		ledger.Dispute{Meta: ledger.Meta{ID: odd}, Tags: ledger.Tags{odd: ""}, Message: &odd, Action: &odd, Reason: odd, DisputeDetails: ledger.DisputeDetails{ARN: odd}},
		ledger.Dispute{},
	)
	same := func(name string, got []byte, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\nappendJSON  %s\njson.Marshal %s", name, got, want)
		}
		var check any
		if err := json.Unmarshal(got, &check); err != nil {
			t.Errorf("%s: not JSON: %v", name, err)
		}
	}
	for _, base := range []string{testBase, "http://h<&>:1", "http://x\xe2\x80"} {
		for _, tr := range transfers {
			v := viewTransfer(base, "FP1", tr)
			same("transfer "+tr.ID, v.AppendJSON(nil), reflected[ledger.Transfer]{tr, linkMap(v.linkList(nil))})
		}
		for _, p := range cards {
			v := viewPaymentInstrument(base, p)
			same("card "+p.ID, v.AppendJSON(nil), reflected[ledger.PaymentInstrument]{p, linkMap(v.linkList(nil))})
		}
		for _, d := range disputes {
			v := viewDispute(base, d)
			same("dispute "+d.ID, v.AppendJSON(nil), reflected[ledger.Dispute]{d, linkMap(v.linkList(nil))})
		}
		for _, a := range auths {
			v := viewAuthorization(base, a)
			same("authorization "+a.ID, v.AppendJSON(nil), reflected[ledger.Authorization]{a, linkMap(v.linkList(nil))})
		}
	}
	if len(transfers) < 6 || len(cards) < 3 || len(auths) < 3 || len(disputes) < 4 {
		t.Errorf("%d transfers, %d cards, %d authorizations, %d disputes: the operations stored fewer records than expected", len(transfers), len(cards), len(auths), len(disputes))
	}
	var adjusted bool
	for _, tr := range transfers {
		adjusted = adjusted || (tr.Adjustment != nil && tr.ID != odd)
	}
	if !adjusted {
		t.Error("no dispute adjustment among the stored transfers")
	}
}

// TestAppendTreeMatchesMarshal compares appendTree with json.Marshal on
// decoded documents: purchase data, nesting, every scalar, awkward strings.
func TestAppendTreeMatchesMarshal(t *testing.T) {
	docs := []any{
		purchaseDataBody(),
		map[string]any{},
		[]any{},
		nil,
		map[string]any{"z": []any{json.Number("1.50"), json.Number("-0"), json.Number("1e3"), true, false, nil}, "a\u2028<": map[string]any{"\xff": "x&y"}, "": ""},
		[]any{map[string]any{"k": []any{[]any{}}}},
		json.Number("12345678901234567890123"),
		"plain",
	}
	for _, doc := range docs {
		got, err := ledger.AppendTree(nil, doc)
		if err != nil {
			t.Fatalf("appendTree(%v) = %v", doc, err)
		}
		want, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("appendTree %s\njson.Marshal %s", got, want)
		}
	}
	for _, extra := range []string{"sales_tax", "a", "zz", "item_data", ""} {
		m := purchaseDataBody()
		got, err := ledger.AppendTreeObject(nil, m, &ledger.TreeMember{Name: extra, Value: json.Number("7")})
		if err != nil {
			t.Fatal(err)
		}
		with := maps.Clone(m)
		with[extra] = json.Number("7")
		want, _ := json.Marshal(with)
		if string(got) != string(want) {
			t.Errorf("with %s: appendTreeObject %s\njson.Marshal %s", extra, got, want)
		}
		if _, changed := m[extra]; changed && extra != "item_data" {
			t.Errorf("appendTreeObject added %s to the map", extra)
		}
	}
	if _, err := ledger.AppendTree(nil, json.Number("1x")); err == nil {
		t.Error("appendTree of an invalid json.Number: no error, want json.Marshal's")
	}
}

// TestListAndBalanceTransferAppendMatchMarshal: a balance transfer and a
// list page written without reflection are the bytes json.Marshal writes
// for them by reflection, awkward values included; a page of views without
// their own encoder still goes through json.Marshal.
func TestListAndBalanceTransferAppendMatchMarshal(t *testing.T) {
	odd := "a\"b\\c\n\t\x01<>&\u2028\u2029é\xff\x7f"
	now := ledger.JSONTime(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600)))
	bts := []ledger.BalanceTransfer{
		{Meta: ledger.Meta{ID: odd, CreatedAt: now, UpdatedAt: now}, Amount: -5, Currency: odd, Description: odd, Source: odd, Destination: odd,
			ExternalReferenceID: odd, ReferenceID: odd, ProcessorType: odd, State: odd, Tags: ledger.Tags{odd: odd, "": "", "a": "b"}},
		{},
		{Tags: ledger.Tags{}},
	}
	for _, base := range []string{testBase, "http://h<&>:1"} {
		var views []balanceTransferView
		for _, b := range bts {
			v := viewBalanceTransfer(base, b)
			views = append(views, v)
			want, err := json.Marshal(reflected[ledger.BalanceTransfer]{b, linkMap(v.linkList(nil))})
			require.NoError(t, err)
			assert.Equal(t, string(want), string(v.AppendJSON(nil)), "balance transfer %q at %s", b.ID, base)
		}
		transfers := []transferView{viewTransfer(base, "FP1", ledger.Transfer{Meta: ledger.Meta{ID: odd}, Tags: ledger.Tags{"k": odd}}), viewTransfer(base, "FP1", ledger.Transfer{})}
		sorted := ledger.ListQuery{Offset: 3, Limit: 20, Sort: []ledger.SortKey{{Field: "amount", Desc: false}, {Field: "id", Desc: true}}}
		first := ledger.ListQuery{Limit: 5, Sort: ledger.DefaultOrder()}
		for name, l := range map[string]listEnvelope{
			"balance transfers": listOf("balance_transfers", views, base+"/x<"+odd, sorted, 99),
			"transfers":         listOf("transfers", transfers, base, sorted, 4),
			"first page":        listOf("transfers", transfers, base+"/transfers", first, 6),
			"only page":         listOf("transfers", transfers, base+"/transfers", first, 2),
			"empty":             listOf("disputes", []disputeView{}, base, first, 0),
			"nil":               listOf[disputeView]("disputes", nil, base, first, 0),
		} {
			got, ok := l.AppendJSON(nil)
			require.True(t, ok, "%s: every item writes its own JSON", name)
			want, err := json.Marshal(listWire(l))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), name)
			marshaled, err := json.Marshal(l)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(marshaled), name)
		}
		_, ok := listOf("files", []fileView{viewFile(base, ledger.File{})}, base, first, 1).AppendJSON(nil)
		assert.False(t, ok, "files have no encoder of their own")
	}
}

// listOf is the envelope newList builds for items of a list at self.
func listOf[V any](plural string, items []V, self string, q ledger.ListQuery, total int) listEnvelope {
	return listEnvelope{plural: plural, items: viewList[V](items), self: self, q: q, Page: page{Offset: q.Offset, Limit: q.Limit, Count: total}}
}

// listWire is l as the list envelope was before it wrote its own links: a
// struct of maps json.Marshal encodes by reflection, its links built as
// strings.
func listWire(l listEnvelope) any {
	self := l.self + l.q.Encode(l.q.Offset)
	ls := links{"self": {self}}
	if l.q.Offset+l.q.Limit < l.Page.Count {
		ls["next"] = link{l.self + l.q.Encode(l.q.Offset+l.q.Limit)}
	}
	if l.q.Offset > 0 {
		ls["prev"] = link{l.self + l.q.Encode(max(l.q.Offset-l.q.Limit, 0))}
	}
	return struct {
		Embedded map[string]any `json:"_embedded"`
		Links    links          `json:"_links"`
		Page     page           `json:"page"`
	}{map[string]any{l.plural: l.items.slice()}, ls, l.Page}
}

// TestAppendTimeMatchesAppendFormat compares the digit-by-digit timestamp
// with AppendFormat of timeLayout: edges of every field, other zones (written
// in UTC), sub-microsecond nanoseconds (truncated), years beyond four digits
// (through AppendFormat), and a run of random instants.
func TestAppendTimeMatchesAppendFormat(t *testing.T) {
	east := time.FixedZone("east", 5*3600+30*60)
	cases := []time.Time{
		{},
		time.Unix(0, 0),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(2024, 2, 29, 12, 34, 56, 123_456_789, time.UTC),
		time.Date(2026, 11, 25, 9, 5, 7, 1_000, east),
		time.Date(2026, 1, 1, 0, 0, 0, 999, east),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_000, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 15, 0, 0, 0, 0, time.UTC),
		time.Now(),
	}
	for i := range 10_000 {
		cases = append(cases, time.Unix(0, int64(i)*7_919_813_377_771+int64(i*i)))
	}
	for _, c := range cases {
		want := c.UTC().AppendFormat([]byte("x"), ledger.TimeLayout)
		assert.Equal(t, string(want), string(ledger.AppendTime([]byte("x"), c)), "%v", c)
		j, err := json.Marshal(ledger.JSONTime(c))
		require.NoError(t, err)
		assert.Equal(t, `"`+string(want[1:])+`"`, string(j))
	}
}

// TestPlainJSONMatchesMarshal checks every byte: plainJSON holds for
// printable ASCII but the quote, the backslash and the HTML characters (DEL
// and the rest go through encoding/json), and json.Marshal writes such a
// string unchanged between quotes; appendJSONString writes what json.Marshal
// does either way.
func TestPlainJSONMatchesMarshal(t *testing.T) {
	for c := range 256 {
		s := "a" + string([]byte{byte(c)}) + "z"
		q, err := json.Marshal(s)
		require.NoError(t, err)
		plain := c >= 0x20 && c < 0x7f && !strings.ContainsRune(`"\<>&`, rune(c))
		assert.Equal(t, plain, ledger.PlainJSON(s), "byte %#x", c)
		if plain {
			assert.Equal(t, `"`+s+`"`, string(q), "byte %#x", c)
		}
		assert.Equal(t, string(q), string(ledger.AppendJSONString(nil, s)), "byte %#x", c)
	}
	assert.True(t, ledger.PlainJSON(""))
}

// TestAppendJSONStringMatchesMarshal compares appendJSONString with
// json.Marshal on every string of one and two bytes, on runes around the
// escaped ones, and on mixed strings (escapes between plain runs, truncated
// and overlong UTF-8, U+2028 and U+2029, the replacement character itself).
func TestAppendJSONStringMatchesMarshal(t *testing.T) {
	var cases []string
	for a := range 256 {
		cases = append(cases, string([]byte{byte(a)}))
		for c := range 256 {
			cases = append(cases, string([]byte{byte(a), byte(c)}))
		}
	}
	for _, r := range []rune{0x7f, 0x80, 0xff, 0x7ff, 0x800, 0x2027, 0x2028, 0x2029, 0x202a, 0xfffd, 0xffff, 0x10000, 0x10ffff} {
		cases = append(cases, string(r), "a"+string(r)+"b")
	}
	cases = append(cases, "", "plain text", "a\"b\\c\n\t\x01<>&\u2028\u2029é\xff\x7f", "?offset=0&limit=20&sort=created_at,desc",
		"\xe2\x80", "\xe2\x80\xa8\xe2", "\xc0\xaf", "\xed\xa0\x80", "x\ufffdy", strings.Repeat("<é&\x00", 50))
	for _, s := range cases {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		if got := ledger.AppendJSONString([]byte("x"), s); !assert.Equal(t, "x"+string(want), string(got), "%q", s) {
			return
		}
	}
}

// TestJSONNumberMatchesMarshal: jsonNumber accepts exactly the json.Number
// values json.Marshal writes (it refuses the others).
func TestJSONNumberMatchesMarshal(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "10", "01", "-01", "1.5", "1.", ".5", "-.5", "1e3", "1E+3", "1e-03", "1e", "1e+",
		"1.5e3", "0.0", "00", "-", "", " 1", "1 ", "+1", "1x", "0x1", "NaN", "Infinity", "123456789012345678901234567890", "1.2.3", "1e3e3", "--1"} {
		_, err := json.Marshal(json.Number(s))
		assert.Equal(t, err == nil && s != "", ledger.JsonNumber(s), "%q", s)
	}
}
