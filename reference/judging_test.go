package reference

import (
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate/judging"
)

// TestErrorKindsAreRefusals: every kind of domain error is a row of the
// refusals table, and the reference renders the row's status and first code.
func TestErrorKindsAreRefusals(t *testing.T) {
	h := newHarness(t)
	kinds := []ledger.ErrorKind{ledger.KindBadRequest, ledger.KindUnauthorized, ledger.KindDeclined, ledger.KindForbidden, ledger.KindNotFound,
		ledger.KindMethodNotAllowed, ledger.KindNotAcceptable, ledger.KindTooLarge, ledger.KindInvalidField, ledger.KindUnprocessable, ledger.KindURITooLong, ledger.KindQuotaExceeded}
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
		"application": ledger.PrefixApplication, "authorization": ledger.PrefixAuthz, "transfer": ledger.PrefixTransfer,
		"payment_instrument": ledger.PrefixCard, "merchant": ledger.PrefixMerchant, "identity": ledger.PrefixIdentity,
		"dispute": ledger.PrefixDispute, "evidence": ledger.PrefixEvidence, "webhook": ledger.PrefixWebhook, "user": ledger.PrefixUser,
		"merchant_profile": ledger.PrefixProfile, "verification": ledger.PrefixVerification, "fee_profile": ledger.PrefixFeeProfile,
		"subscription_schedule": ledger.PrefixSchedule, "subscription_amount": ledger.PrefixAmount,
		"subscription_enrollment": ledger.PrefixEnrollment, "balance_transfer": ledger.PrefixBalance, "file": ledger.PrefixFile,
		"external_link": ledger.PrefixLink, "event": ledger.PrefixEvent,
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
		if id := ledger.RandomID(prefix); !re.MatchString(id) {
			t.Errorf("randomID(%s) = %q, not of the default id_form", kind, id)
		}
	}
}
