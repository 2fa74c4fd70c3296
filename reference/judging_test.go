package reference

import (
	"testing"

	"github.com/conform-kit/conform/validate/judging"
)

// TestErrorKindsAreRefusals: every kind of domain error is a row of the
// refusals table, and the reference renders the row's status and first code.
func TestErrorKindsAreRefusals(t *testing.T) {
	h := newHarness(t)
	kinds := []errorKind{kindBadRequest, kindUnauthorized, kindDeclined, kindForbidden, kindNotFound,
		kindMethodNotAllowed, kindNotAcceptable, kindTooLarge, kindInvalidField, kindUnprocessable, kindURITooLong, kindQuotaExceeded}
	if got := len(h.srv.judged.Refusals); got != len(kinds) {
		t.Errorf("the refusals table has %d kinds, the reference %d", got, len(kinds))
	}
	for _, k := range kinds {
		if _, ok := h.srv.judged.Refusals[string(k)]; !ok {
			t.Errorf("kind %q is not in the refusals table", k)
		}
	}
	ref := h.srv.judged.Refusals[judging.RefusalNotFound]
	r := h.call(h.platform(), "GET", "/disputes/DI0000000000000000000000", nil)
	h.expect(r, ref.Status, "error")
	if got := errorCode(t, r); got != ref.Codes[0] {
		t.Errorf("code %q, want the table's %q", got, ref.Codes[0])
	}
}

// TestIDPrefixesAreTheTable: the prefixes the reference mints are those of
// schemas/judging.json (Go needs them as constants; the table is the source).
func TestIDPrefixesAreTheTable(t *testing.T) {
	v, err := judging.Default()
	if err != nil {
		t.Fatal(err)
	}
	mine := map[string]string{
		"application": prefixApplication, "authorization": prefixAuthz, "transfer": prefixTransfer,
		"payment_instrument": prefixCard, "merchant": prefixMerchant, "identity": prefixIdentity,
		"dispute": prefixDispute, "evidence": prefixEvidence, "webhook": prefixWebhook, "user": prefixUser,
		"merchant_profile": prefixProfile, "verification": prefixVerification, "fee_profile": prefixFeeProfile,
		"subscription_schedule": prefixSchedule, "subscription_amount": prefixAmount,
		"subscription_enrollment": prefixEnrollment, "balance_transfer": prefixBalance, "file": prefixFile,
		"external_link": prefixLink, "event": prefixEvent,
	}
	if got := len(v.Table().IDPrefixes); got != len(mine) {
		t.Errorf("judging.json has %d id prefixes, the reference %d", got, len(mine))
	}
	for kind, prefix := range mine {
		if want := v.IDPrefix(kind); prefix != want {
			t.Errorf("prefix of %s: reference %q, judging.json %q", kind, prefix, want)
		}
	}
	p := v.DefaultProfile()
	for kind, prefix := range mine {
		re, err := p.IDPattern(prefix)
		if err != nil {
			t.Fatal(err)
		}
		if id := randomID(prefix); !re.MatchString(id) {
			t.Errorf("randomID(%s) = %q, not of the default id_form", kind, id)
		}
	}
}
