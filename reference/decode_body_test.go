package reference

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/conform-kit/conform/validate"
	"github.com/stretchr/testify/require"
)

// TestDecodeBodyMatchesDecodeTree: decoding a validated body with the
// validator's decoder builds what decodeTree builds from encoding/json's
// tree, with the same verdict, for every shape decodeTree handles.
func TestDecodeBodyMatchesDecodeTree(t *testing.T) {
	cases := []struct {
		name string
		new  func() any
		body string
	}{
		{"sale", func() any { return &transferCreate{} }, `{"source":"PI1","merchant":"MU1","amount":1000,"currency":"USD","fee":5,"idempotency_id":"k","tags":{"a":"b","c":""},"additional_purchase_data":{"customer_reference_number":"c","item_data":[{"amount_excluding_sales_tax":1.0,"quantity":2}],"sales_tax":0}}`},
		{"sale, amount 1e3 and 1.0 in purchase data", func() any { return &transferCreate{} }, `{"amount":1e3,"additional_purchase_data":{"discount_amount":5.0,"x":[1.50,2E1]}}`},
		{"sale, amount 1.0", func() any { return &transferCreate{} }, `{"amount":1.0,"fee":2.0}`},
		{"sale, amount out of range", func() any { return &transferCreate{} }, `{"amount":99999999999999999999}`},
		{"sale, amount 1e30", func() any { return &transferCreate{} }, `{"amount":1e30}`},
		{"sale, amount 1.5", func() any { return &transferCreate{} }, `{"amount":1.5}`},
		{"sale, nulls", func() any { return &transferCreate{} }, `{"source":null,"fee":null,"tags":null,"idempotency_id":null,"additional_purchase_data":null}`},
		{"sale, key in another case", func() any { return &transferCreate{} }, `{"Amount":7,"SOURCE":"PI2"}`},
		{"sale, wrong type", func() any { return &transferCreate{} }, `{"source":true}`},
		{"sale, tags of the wrong type", func() any { return &transferCreate{} }, `{"tags":{"a":false}}`},
		{"card", func() any { return &cardCreate{} }, `{"type":"PAYMENT_CARD","name":"n","number":"4111111111111111","expiration_month":12,"expiration_year":2030,"security_code":"123","identity":"ID1","address":{"line1":"l","line2":null,"postal_code":"94110","country":"USA"},"tags":{}}`},
		{"schedule", func() any { return &scheduleCreate{} }, `{"line_item_type":"FEE","nickname":"n","subscription_type":"PERIODIC_MONTHLY","period_offset":{"day":1,"month":null}}`},
		{"amount, nested out of range", func() any { return &amountBody{} }, `{"fee_amount_data":{"amount":1e40}}`},
		{"webhook", func() any { return &webhookBody{} }, `{"url":"https://example.com/h","enabled":true,"enabled_events":["transfer.created",{"entity":"dispute","types":["created"]}],"authentication":{"type":"BASIC","basic":{"username":"u","password":"p"}}}`},
		{"string for a struct", func() any { return &cardCreate{} }, `{"address":"x"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dec := json.NewDecoder(bytes.NewReader([]byte(c.body)))
			dec.UseNumber()
			var doc any
			require.NoError(t, dec.Decode(&doc))
			want, got := c.new(), c.new()
			wantErr := decodeTree(doc, want)
			v, err := validate.Default()
			require.NoError(t, err)
			gotErr := decodeBody(v, []byte(c.body), got)
			require.Equal(t, wantErr == nil, gotErr == nil, "decodeBody %v, decodeTree %v", gotErr, wantErr)
			if wantErr != nil {
				require.Equal(t, wantErr.Error(), gotErr.Error())
				var we, ge *domainError
				require.Equal(t, errors.As(wantErr, &we), errors.As(gotErr, &ge))
				return
			}
			require.True(t, reflect.DeepEqual(want, got), "decodeBody built\n%#v\ndecodeTree\n%#v", got, want)
		})
	}
}

// TestCountTags counts the members of tags without building them.
func TestCountTags(t *testing.T) {
	for body, want := range map[string]int{
		`{"tags":{}}`:                        0,
		`{"tags":null}`:                      0,
		`{"amount":1}`:                       0,
		`{"tags":{"a":"b"}}`:                 1,
		`{"tags":{ "a" : "b,}" , "c":"\""}}`: 2,
		`{"x":{"a":1,"b":2},"tags":{"a":"","b":"","c":"{"}}`: 3,
	} {
		require.Equal(t, want, countTags([]byte(body)), body)
	}
}
