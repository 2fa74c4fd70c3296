package explore

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecretsOnlyWhereOnlyTheSecretCouldGiveThem: a security code counts
// as leaked only where nothing but the code could have put it (a field
// that carries codes, or a value the run never sent elsewhere); a card
// number anywhere. A Level 3 commodity_code the run sent, equal to a
// security code it sent for a card, is not a leak.
func TestSecretsOnlyWhereOnlyTheSecretCouldGiveThem(t *testing.T) {
	const card = "4895142232120006"
	for _, tc := range []struct {
		name    string
		sent    []string // bodies the run sent before (op, body), besides the card
		secrets []string
		answer  string
		leak    string // the path named, "" for none; "*" for the long-secret message
	}{
		{name: "a commodity_code equal to an earlier security code, sent as such",
			sent:    []string{"transfers.create", `{"amount":100,"additional_purchase_data":{"item_data":[{"commodity_code":"234"}]}}`},
			secrets: []string{card, "234"},
			answer:  `{"id":"TR1","additional_purchase_data":{"item_data":[{"commodity_code":"234"}]}}`},
		{name: "a postal code equal to a security code, sent as such",
			sent:    []string{"payment_instruments.create", `{"number":"` + card + `","security_code":"1234","address":{"postal_code":"1234"}}`},
			secrets: []string{card, "1234"},
			answer:  `{"id":"PI1","address":{"postal_code":"1234"}}`},
		{name: "a reference number of 16 digits the run sent",
			sent:    []string{"transfers.create", `{"additional_purchase_data":{"customer_reference_number":"0000000000000042"}}`},
			secrets: []string{card, "123"},
			answer:  `{"id":"TR1","additional_purchase_data":{"customer_reference_number":"0000000000000042"}}`},
		{name: "the security code echoed in its field",
			sent:    []string{"payment_instruments.create", `{"number":"` + card + `","security_code":"1234"}`},
			secrets: []string{card, "1234"},
			answer:  `{"id":"PI1","security_code":"1234"}`,
			leak:    "security_code"},
		{name: "the security code echoed under another name, never sent there",
			sent:    []string{"payment_instruments.create", `{"number":"` + card + `","security_code":"9876"}`},
			secrets: []string{card, "9876"},
			answer:  `{"id":"PI1","verification":{"value":"9876"}}`,
			leak:    "verification.value"},
		{name: "a cvv field holds any code",
			secrets: []string{card},
			answer:  `{"id":"PI1","card":{"cvv":"042"}}`,
			leak:    "card.cvv"},
		{name: "a card number in a number field the run never sent there",
			secrets: []string{"123"},
			answer:  `{"id":"PI1","number":"4111111111111111"}`,
			leak:    "number"},
		{name: "the card number inside a longer value",
			secrets: []string{card, "123"},
			answer:  `{"id":"PI1","name":"x` + card + `"}`,
			leak:    "*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := newRunner(Options{Target: Target{URL: "http://127.0.0.1:1"}, Model: referenceModel})
			require.NoError(t, err)
			for i := 0; i+1 < len(tc.sent); i += 2 {
				r.sent.note(tc.sent[i], tc.sent[i+1])
			}
			var doc any
			require.NoError(t, json.Unmarshal([]byte(tc.answer), &doc))
			st := Step{Op: "payment_instruments.get", Method: "GET", Path: "/payment_instruments/PI1"}
			f := r.secretsIn(st, Exchange{Step: st, Method: "GET", Path: st.Path, Status: 200, Response: tc.answer, doc: doc}, tc.secrets)
			switch tc.leak {
			case "":
				assert.Nil(t, f, "a value the run sent as itself is no leak")
			case "*":
				require.NotNil(t, f, "the card number is a leak anywhere")
				assert.Equal(t, checkSecrets, f.Check)
				assert.Contains(t, f.Message, "holds a secret the run sent")
			default:
				require.NotNil(t, f, "a leak at %s", tc.leak)
				assert.Equal(t, checkSecrets, f.Check)
				assert.Equal(t, tc.leak+" absent", f.Expected)
				assert.True(t, f.Basis.Normative(), "secrets is an invariant")
			}
		})
	}
}
