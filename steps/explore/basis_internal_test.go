package explore

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/conform-kit/conform/reference"
	"github.com/conform-kit/conform/steps"
	"github.com/conform-kit/conform/validate/judging"
)

// referenceConfig is the suite's config of a reference's seeded users and fixtures.
func referenceConfig(url string, s reference.Seeded) steps.Config {
	cred := func(c reference.Credential) *steps.Credential {
		return &steps.Credential{Username: c.Username, Password: c.Password}
	}
	f := s.Fixtures
	return steps.Config{
		Target: url,
		Credentials: steps.Credentials{Platform: cred(s.Credentials.Platform), Merchant: cred(s.Credentials.Merchant),
			OtherApplication: cred(s.Credentials.OtherApplication)},
		Fixtures: steps.Fixtures{BuyerIdentity: f.BuyerIdentity, Merchant: f.Merchant, MerchantIdentity: f.MerchantIdentity,
			PlainMerchant: f.PlainMerchant, PlainMerchantIdentity: f.PlainMerchantIdentity, SubscriptionSchedule: f.SubscriptionSchedule,
			SubscriptionAmount: f.SubscriptionAmount, Dispute: f.Dispute, BalanceTransfer: f.BalanceTransfer},
		WebhookReceiver: steps.ReceiverConfig{Listen: "127.0.0.1:0"},
	}
}

func referenceModel() (http.Handler, steps.Config, func(), error) {
	srv, err := reference.New(reference.Config{BaseURL: modelBase, ReviewDelay: time.Hour, RetryScale: 0.0001, Seed: 1})
	if err != nil {
		return nil, steps.Config{}, nil, err
	}
	return srv, referenceConfig(modelBase, srv.Seeded()), func() { _ = srv.Close() }, nil
}

// TestKnownFalseFailsAreAssumed: the two false FAILs explore made against
// a conformant server now rest on an assumed basis: an external link's
// duration bound (the spec shows no payload of the file endpoints) and
// webhook tags read back (§2.10 shows no tags on a webhook).
func TestKnownFalseFailsAreAssumed(t *testing.T) {
	r, err := newRunner(Options{Target: steps.Config{Target: "http://127.0.0.1:1"}, Model: referenceModel})
	require.NoError(t, err)
	link := Step{Op: "files.external_links.create", AtLimit: []string{"duration"}}
	_, ok := r.v.Operation(link.Op)
	require.True(t, ok, "operation %s", link.Op)
	b := r.basisFor(checkAllowed, link, basisOf("8", "4.8"))
	assert.Equal(t, "file_payloads", b.Assumed, "a refused duration of 10080: %s", b.Cites())

	get, ok := r.v.Operation("webhooks.get")
	require.True(t, ok)
	assert.Equal(t, keyFieldNotShown, r.fieldBasis(basisOf("2.10"), get, "tags.explore").Assumed, "webhook tags")
	assert.True(t, r.fieldBasis(basisOf("2.10"), get, "url").Normative(), "a webhook's url is shown by §2.10")
	card, _ := r.v.Operation("payment_instruments.get")
	assert.True(t, r.fieldBasis(basisOf("2.3"), card, "tags.explore").Normative(), "a card's tags are shown by §2.3")
	assert.True(t, r.fieldBasis(basisOf("2.3"), card, "address.line1").Normative())
}

// TestEveryBasisFromTheData walks every check explore makes in a run
// against the reference and compares each basis it would give with the
// suite's for the same fact, derived here from the data independently:
// the operation's basis (judging.OperationBasis, as the suite's opBasis),
// the request and response schemas' bases (judging.json, as checkSchema),
// and for a field read back whether the normative schema constrains it at
// all (a value of no type a schema allows there breaks it only if it does).
func TestEveryBasisFromTheData(t *testing.T) {
	srv, err := reference.New(reference.Config{ReviewDelay: 20 * time.Millisecond, RetryScale: 0.0001, Seed: 1})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); _ = srv.Close() })
	r, err := newRunner(Options{Target: referenceConfig(hs.URL, srv.Seeded()), Model: referenceModel, Seed: 3, Budget: 1500})
	require.NoError(t, err)
	j := r.j
	var mu sync.Mutex
	seen := map[string]bool{}
	checked := 0
	r.judged = func(st Step, expect []expectField, tex, mex Exchange) {
		mu.Lock()
		defer mu.Unlock()
		op, ok := r.v.Operation(st.Op)
		require.True(t, ok, st.Op)
		opNormative := judging.OperationBasis(op).Normative()
		reqNormative := opNormative
		if op.HasJSONBody() && op.Request != "" {
			sb, _ := j.SchemaBasis(op.Request)
			reqNormative = reqNormative && sb.Normative()
		}
		for _, check := range []string{checkForbidden, checkAllowed} {
			for _, b := range []judging.Basis{st.Basis, basisOf("8"), basisOf(op.Clauses...)} {
				got := r.basisFor(check, st, b)
				key := fmt.Sprintf("%s|%s|%s", check, st.Op, b.Cites())
				if seen[key] {
					continue
				}
				seen[key] = true
				checked++
				assert.Equal(t, b.Normative() && reqNormative, got.Normative(), "%s on %s from %s: %s", check, st.Op, b.Cites(), got.Cites())
			}
		}
		doc, _ := tex.doc.(map[string]any)
		if !is2xx(tex.Status) || doc == nil || op.Response == "" || strings.HasSuffix(op.Response, "_list") {
			return
		}
		role := st.Save
		if role == "" {
			role = st.Of
		}
		sb, _ := j.SchemaBasis(op.Response)
		for _, e := range expect {
			key := "field|" + op.ID + "|" + e.Path
			if seen[key] || !e.Basis.Normative() {
				continue
			}
			seen[key] = true
			checked++
			want := opNormative && sb.Normative() && constrains(t, j, op.Response, doc, e.Path)
			got := r.fieldBasis(e.Basis, op, e.Path)
			assert.Equal(t, want, got.Normative(), "%s of the %s (%s): %s", e.Path, role, op.Response, got.Cites())
		}
	}
	res, err := r.run(context.Background())
	require.NoError(t, err)
	require.Greater(t, res.Requests, 500, "requests sent")
	assert.Greater(t, checked, 40, "facts compared")
	t.Logf("%d facts compared over %d requests", checked, res.Requests)
	assert.Empty(t, res.Findings, "the reference")
}

// constrains reports whether the normative schema says anything of the
// field at path of doc: a value no schema type admits there (an object
// holding an array under an unlikely key) breaks the schema only then.
func constrains(t *testing.T, j *judging.Judge, schema string, doc map[string]any, path string) bool {
	t.Helper()
	bad := map[string]any{"\x01explore": []any{[]any{}}}
	cp := deepCopy(doc).(map[string]any)
	parts := strings.Split(path, ".")
	cur := cp
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = bad
	return j.ValidateNormativeValue(schema, cp) != nil
}

func deepCopy(v any) any {
	switch d := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(d))
		for k, x := range d {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(d))
		for i, x := range d {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}
