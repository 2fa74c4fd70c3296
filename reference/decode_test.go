package reference

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
)

// jsonDecode is how bodies were decoded before decodeTree: encoding/json
// with UseNumber, again on the normalised body when an integer field refused
// a number. decodeTree must build the same value and the same verdict.
func jsonDecode(body []byte, dst any) error {
	decodeOnce := func(b []byte) error {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		return dec.Decode(dst)
	}
	err := decodeOnce(body)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		var v any
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			if normalized, merr := json.Marshal(integralize(v)); merr == nil {
				reflect.ValueOf(dst).Elem().SetZero()
				err = decodeOnce(normalized)
			}
		}
	}
	if err == nil {
		return nil
	}
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		return ledger.ErrInvalidField("/"+strings.ReplaceAll(typeErr.Field, ".", "/"), "must be an integer from %d to %d", int64(math.MinInt64), int64(math.MaxInt64))
	}
	return validate.ErrMalformed
}

// bodyShapes are bodies of every shape the input types take, valid and
// not: the decoders are compared on each.
var bodyShapes = []struct {
	name string
	new  func() any
	body string
}{
	{"sale", func() any { return &ledger.TransferCreate{} }, `{"source":"PI1","merchant":"MU1","amount":1000,"currency":"USD","fee":5,"idempotency_id":"k","tags":{"a":"b","c":""},"additional_purchase_data":{"customer_reference_number":"c","item_data":[{"amount_excluding_sales_tax":1.0,"quantity":2}],"sales_tax":0}}`},
	{"sale, amount 1e3 and 1.0 in purchase data", func() any { return &ledger.TransferCreate{} }, `{"amount":1e3,"additional_purchase_data":{"discount_amount":5.0,"x":[1.50,2E1]}}`},
	{"sale, amount 1.0", func() any { return &ledger.TransferCreate{} }, `{"amount":1.0,"fee":2.0}`},
	{"sale, amount out of range", func() any { return &ledger.TransferCreate{} }, `{"amount":99999999999999999999}`},
	{"sale, amount 1e30", func() any { return &ledger.TransferCreate{} }, `{"amount":1e30}`},
	{"sale, amount 1.5", func() any { return &ledger.TransferCreate{} }, `{"amount":1.5}`},
	{"sale, nulls", func() any { return &ledger.TransferCreate{} }, `{"source":null,"fee":null,"tags":null,"idempotency_id":null,"additional_purchase_data":null}`},
	{"sale, key in another case", func() any { return &ledger.TransferCreate{} }, `{"Amount":7,"SOURCE":"PI2"}`},
	{"sale, wrong type", func() any { return &ledger.TransferCreate{} }, `{"source":true}`},
	{"sale, wrong type of a pointer", func() any { return &ledger.TransferCreate{} }, `{"idempotency_id":true}`},
	{"sale, tags of the wrong type", func() any { return &ledger.TransferCreate{} }, `{"tags":{"a":false}}`},
	{"card", func() any { return &ledger.CardCreate{} }, `{"type":"PAYMENT_CARD","name":"n","number":"4111111111111111","expiration_month":12,"expiration_year":2030,"security_code":"123","identity":"ID1","address":{"line1":"l","line2":null,"postal_code":"94110","country":"USA"},"tags":{}}`},
	{"authorization", func() any { return &ledger.AuthorizationCreate{} }, `{"source":"PI1","merchant_identity":"ID1","amount":10,"currency":"USD","processor":"DUMMY_V1","idempotency_id":"i"}`},
	{"capture", func() any { return &ledger.CaptureRequest{} }, `{"capture_amount":10,"fee":1,"additional_purchase_data":{"a":1}}`},
	{"merchant update", func() any { return &ledger.MerchantUpdate{} }, `{"level_two_level_three_data_enabled":false,"tags":{"x":"y"}}`},
	{"schedule", func() any { return &ledger.ScheduleCreate{} }, `{"line_item_type":"FEE","nickname":"n","subscription_type":"PERIODIC_MONTHLY","period_offset":{"day":1,"month":null}}`},
	{"amount, nested", func() any { return &ledger.AmountBody{} }, `{"amount_type":"FEE","fee_amount_data":{"amount":100,"currency":"USD","label":null},"nickname":"n"}`},
	{"amount, nested out of range", func() any { return &ledger.AmountBody{} }, `{"fee_amount_data":{"amount":1e40}}`},
	{"enrollment", func() any { return &ledger.EnrollmentBody{} }, `{"merchant":"MU1","started_at":"2026-01-01T00:00:00Z","ended_at":null}`},
	{"balance transfer", func() any { return &ledger.BalanceTransferCreate{} }, `{"amount":5,"currency":"USD","description":"d","source":"s","destination":"d","processor_type":"p","external_reference_id":"e"}`},
	{"file", func() any { return &ledger.FileCreate{} }, `{"display_name":"d","linked_to":"l","linked_type":"t","type":"x"}`},
	{"external link", func() any { return &ledger.ExternalLinkCreate{} }, `{"type":"UPLOAD","duration":30}`},
	{"webhook", func() any { return &ledger.WebhookBody{} }, `{"url":"https://example.com/h","enabled":true,"enabled_events":["transfer.created",{"entity":"dispute","types":["created"]}],"authentication":{"type":"BASIC","basic":{"username":"u","password":"p"}}}`},
	{"webhook, bearer", func() any { return &ledger.WebhookBody{} }, `{"authentication":{"type":"BEARER","bearer":{"token":"t"}},"enabled_events":[]}`},
	{"not an object", func() any { return &ledger.TransferCreate{} }, `[1]`},
	{"string for a struct", func() any { return &ledger.CardCreate{} }, `{"address":"x"}`},
}

// TestDecodeTreeMatchesEncodingJSON decodes bodies of every shape the input
// types take both ways and compares the values and the verdicts.
func TestDecodeTreeMatchesEncodingJSON(t *testing.T) {
	cases := bodyShapes
	// A number where the field takes none was a 422 "must be an integer"
	// from encoding/json's type error, a wrong message; validation rules it
	// out before decoding, and decodeTree calls it a malformed body.
	for _, c := range []struct {
		body string
		dst  any
	}{{`{"source":7}`, &ledger.TransferCreate{}}, {`{"tags":{"a":1}}`, &ledger.TransferCreate{}}, {`{"address":5}`, &ledger.CardCreate{}}} {
		var doc any
		if err := json.Unmarshal([]byte(c.body), &doc); err != nil {
			t.Fatal(err)
		}
		if err := decodeTree(doc, c.dst); !errors.Is(err, validate.ErrMalformed) {
			t.Errorf("%s into %T: %v, want ErrMalformed", c.body, c.dst, err)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, got := c.new(), c.new()
			wantErr := jsonDecode([]byte(c.body), want)
			dec := json.NewDecoder(strings.NewReader(c.body))
			dec.UseNumber()
			var doc any
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			gotErr := decodeTree(doc, got)
			if (wantErr == nil) != (gotErr == nil) || errors.Is(wantErr, validate.ErrMalformed) != errors.Is(gotErr, validate.ErrMalformed) {
				t.Fatalf("decodeTree error %v, encoding/json %v", gotErr, wantErr)
			}
			if wantErr != nil {
				if wantErr.Error() != gotErr.Error() && !errors.Is(wantErr, validate.ErrMalformed) {
					t.Errorf("decodeTree error %q, encoding/json %q", gotErr, wantErr)
				}
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decodeTree built\n%#v\nencoding/json\n%#v", got, want)
			}
		})
	}
}

// TestInputsArePlainData: decodeTree fills fields by their JSON type and
// knows no UnmarshalJSON or UnmarshalText, so no input type may have one,
// down to its innermost field, but ledger.PurchaseData, whose
// UnmarshalJSON decodeTree does itself (treeDecoder.purchaseData).
func TestInputsArePlainData(t *testing.T) {
	jsonU, textU := reflect.TypeFor[json.Unmarshaler](), reflect.TypeFor[encoding.TextUnmarshaler]()
	seen := map[reflect.Type]bool{reflect.TypeFor[ledger.PurchaseData](): true}
	var walk func(path string, typ reflect.Type)
	walk = func(path string, typ reflect.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		if reflect.PointerTo(typ).Implements(jsonU) || reflect.PointerTo(typ).Implements(textU) {
			t.Errorf("%s (%s) unmarshals itself", path, typ)
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(path+"[]", typ.Elem())
		case reflect.Map:
			walk(path+"{key}", typ.Key())
			walk(path+"{}", typ.Elem())
		case reflect.Struct:
			for f := range typ.Fields() {
				walk(path+"."+f.Name, f.Type)
			}
		}
	}
	for _, in := range []any{ledger.CardCreate{}, ledger.AuthorizationCreate{}, ledger.CaptureRequest{}, ledger.TransferCreate{}, ledger.MerchantUpdate{},
		ledger.ScheduleCreate{}, ledger.AmountBody{}, ledger.EnrollmentBody{}, ledger.BalanceTransferCreate{}, ledger.FileCreate{}, ledger.ExternalLinkCreate{}, ledger.WebhookBody{}} {
		walk(reflect.TypeOf(in).Name(), reflect.TypeOf(in))
	}
}
