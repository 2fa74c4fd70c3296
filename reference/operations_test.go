package reference

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/conform-kit/conform/reference/ledger"
)

// multipartBody builds a multipart body with a part named file.
func multipartBody(t testing.TB, name, contentType string, data []byte) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	hdr := make(map[string][]string)
	hdr["Content-Disposition"] = []string{`form-data; name="file"; filename="` + name + `"`}
	hdr["Content-Type"] = []string{contentType}
	pw, err := mw.CreatePart(hdr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write(data)
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return mw.FormDataContentType(), buf.Bytes()
}

// TestEveryOperation drives each operation of the table once with a valid
// request and checks the table's success status and the response schema.
func TestEveryOperation(t *testing.T) {
	h := newHarness(t)
	p := h.platform()
	fx := h.fx.Fixtures
	seen := map[string]bool{}
	do := func(opID string, path string, body any, headers ...string) response {
		t.Helper()
		op, ok := h.v.Operation(opID)
		if !ok {
			t.Fatalf("unknown operation %s", opID)
		}
		seen[opID] = true
		cred := p
		if len(op.Roles) == 0 {
			cred = ledger.Credential{}
		}
		r := h.call(cred, op.Method, path, body, headers...)
		return h.expect(r, op.Status, op.Response)
	}

	card := do("payment_instruments.create", "/payment_instruments", cardBody(fx.BuyerIdentity, "4111111111111111")).str(t, "id")
	do("payment_instruments.get", "/payment_instruments/"+card, nil)
	auth := do("authorizations.create", "/authorizations", map[string]any{
		"source": card, "merchant_identity": fx.MerchantIdentity, "amount": 1000, "currency": "USD",
		"additional_purchase_data": purchaseDataBody(),
	}).str(t, "id")
	do("authorizations.get", "/authorizations/"+auth, nil)
	tr := do("authorizations.capture", "/authorizations/"+auth, map[string]any{"capture_amount": 900, "fee": 10}).str(t, "transfer")
	do("transfers.get", "/transfers/"+tr, nil)
	do("transfers.create", "/transfers", map[string]any{"source": card, "merchant": fx.Merchant, "amount": 500, "currency": "USD"})
	do("merchants.get", "/merchants/"+fx.Merchant, nil)
	do("merchants.update", "/merchants/"+fx.Merchant, map[string]any{"level_two_level_three_data_enabled": true})

	sched := do("subscription_schedules.create", "/subscription/subscription_schedules", map[string]any{
		"line_item_type": "FEE", "nickname": "Monthly", "subscription_type": "PERIODIC_MONTHLY",
		"period_offset": map[string]any{"day": 1},
	}).str(t, "id")
	do("subscription_schedules.get", "/subscription/subscription_schedules/"+sched, nil)
	amountBody := map[string]any{"amount_type": "FEE", "nickname": "Fee", "fee_amount_data": map[string]any{"amount": 1000, "currency": "USD", "label": "Fee"}}
	amt := do("subscription_amounts.create", "/subscription/subscription_schedules/"+sched+"/subscription_amounts", amountBody).str(t, "id")
	do("subscription_amounts.get", "/subscription/subscription_schedules/"+sched+"/subscription_amounts/"+amt, nil)
	do("subscription_amounts.update", "/subscription/subscription_schedules/"+sched+"/subscription_amounts/"+amt, amountBody)
	enr := do("subscription_enrollments.create", "/subscription/subscription_schedules/"+sched+"/subscription_enrollments", map[string]any{
		"merchant": fx.Merchant, "nickname": "Enrollment",
	}).str(t, "id")
	do("subscription_enrollments.list_by_schedule", "/subscription/subscription_schedules/"+sched+"/subscription_enrollments", nil)
	do("subscription_enrollments.list", "/subscription/subscription_enrollments", nil)
	do("subscription_enrollments.get", "/subscription/subscription_enrollments/"+enr, nil)
	do("subscription_enrollments.update", "/subscription/subscription_enrollments/"+enr, map[string]any{"nickname": "Renamed"})
	do("subscription_enrollments.delete", "/subscription/subscription_enrollments/"+enr, nil)

	do("disputes.list", "/disputes", nil)
	do("disputes.get", "/disputes/"+fx.Dispute, nil)
	ct, body := multipartBody(t, "receipt.pdf", "application/pdf", []byte("%PDF-1.4 receipt"))
	ev := do("dispute_evidence.create", "/disputes/"+fx.Dispute+"/evidence", body, "Content-Type", ct).str(t, "id")
	do("dispute_evidence.list", "/disputes/"+fx.Dispute+"/evidence", nil)
	do("dispute_evidence.get", "/disputes/"+fx.Dispute+"/evidence/"+ev, nil)
	do("dispute_adjustment_transfers.list", "/disputes/"+fx.Dispute+"/adjustment_transfers", nil)

	do("balance_transfers.create", "/balance_transfers", map[string]any{
		"amount": 100, "currency": "USD", "description": "Top up", "source": "OPERATING_ACCOUNT", "destination": "FOR_BENEFIT_OF_ACCOUNT",
	})
	do("balance_transfers.list", "/balance_transfers", nil)
	do("balance_transfers.get", "/balance_transfers/"+fx.BalanceTransfer, nil)

	file := do("files.create", "/files", map[string]any{"display_name": "License", "linked_to": fx.Merchant, "type": "DRIVERS_LICENSE_FRONT"}).str(t, "id")
	do("files.list", "/files", nil)
	do("files.get", "/files/"+file, nil)
	ct, body = multipartBody(t, "license.png", "image/png", []byte("\x89PNG fake"))
	do("files.upload", "/files/"+file+"/upload", body, "Content-Type", ct)
	if got := do("files.download", "/files/"+file+"/download", nil); !bytes.Equal(got.body, []byte("\x89PNG fake")) {
		t.Errorf("download = %q, want the uploaded bytes", got.body)
	}
	file2 := do("files.create", "/files", map[string]any{"display_name": "Statement", "linked_to": fx.Merchant, "type": "BANK_STATEMENT"}).str(t, "id")
	link := do("files.external_links.create", "/files/"+file2+"/external_links", map[string]any{"type": "UPLOAD", "duration": 30})
	do("files.external_links.list", "/files/"+file2+"/external_links", nil)
	do("files.external_links.get", "/files/"+file2+"/external_links/"+link.str(t, "id"), nil)
	do("files.external_upload", "/external_links/"+link.str(t, "id")+"/upload", []byte("statement"), "Content-Type", "application/pdf")

	wh := do("webhooks.create", "/webhooks", map[string]any{"url": "http://127.0.0.1:1/hook", "enabled": false}).str(t, "id")
	do("webhooks.list", "/webhooks", nil)
	do("webhooks.get", "/webhooks/"+wh, nil)
	do("webhooks.update", "/webhooks/"+wh, map[string]any{"enabled": false})

	for _, op := range h.v.Operations() {
		if !seen[op.ID] {
			t.Errorf("operation %s (%s %s) not exercised", op.ID, op.Method, op.Path)
		}
	}
	if r := h.call(p, http.MethodGet, "/files/"+file2+"/download", nil); r.status != http.StatusOK {
		t.Errorf("GET download: status %d", r.status)
	}
}
