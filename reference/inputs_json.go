package reference

import (
	"math"

	"github.com/conform-kit/conform/reference/ledger"
	"github.com/conform-kit/conform/validate"
)

// Reading the input types straight from a validated body's bytes, member by
// member (validate.Reader), instead of building the body's tree and filling
// the fields from it by reflection (decodeTree). Each type names its members
// in a switch; a member's value replaces the field whole, as decodeTree
// fills a fresh value from the last of duplicate names. Whatever decodeTree
// takes in another way than the plain one (a name that matches a field only
// but for case, or no field; a value of another JSON type; an integer
// written as 1.0 or 1e3, or out of range) stops the reader, and the body is
// decoded by decodeTree instead, which decides it (decodeBody).
// TestReadInputMatchesDecodeTree and FuzzReadInput compare the two.

// inputReader reads one body's members into an input type.
type inputReader struct {
	r       validate.Reader
	stopped bool // a value decodeTree must decide
}

// next is the name of the next member of the object at hand, or false at
// its end or once stopped.
func (d *inputReader) next() (string, bool) {
	if d.stopped {
		return "", false
	}
	return d.r.Next()
}

// stop leaves the body to decodeTree.
func (d *inputReader) stop() { d.stopped = true }

// object opens the object at hand; false (stopped) when it is another type.
func (d *inputReader) object() bool {
	if !d.r.Object() {
		d.stop()
		return false
	}
	return true
}

func (d *inputReader) str() string {
	if d.r.Null() {
		return ""
	}
	s, ok := d.r.String()
	if !ok {
		d.stop()
	}
	return s
}

func (d *inputReader) strPtr() *string {
	if d.r.Null() {
		return nil
	}
	s, ok := d.r.String()
	if !ok {
		d.stop()
		return nil
	}
	return &s
}

func (d *inputReader) boolPtr() *bool {
	if d.r.Null() {
		return nil
	}
	b, ok := d.r.Bool()
	if !ok {
		d.stop()
		return nil
	}
	return &b
}

func (d *inputReader) int64() int64 {
	if d.r.Null() {
		return 0
	}
	n, ok := d.r.Int64()
	if !ok {
		d.stop()
	}
	return n
}

func (d *inputReader) int64Ptr() *int64 {
	if d.r.Null() {
		return nil
	}
	n, ok := d.r.Int64()
	if !ok {
		d.stop()
		return nil
	}
	return &n
}

func (d *inputReader) int() int {
	if d.r.Null() {
		return 0
	}
	n, ok := d.r.Int64()
	if !ok || n < math.MinInt || n > math.MaxInt {
		d.stop()
		return 0
	}
	return int(n)
}

func (d *inputReader) intPtr() *int {
	if d.r.Null() {
		return nil
	}
	n := d.int()
	if d.stopped {
		return nil
	}
	return &n
}

// tags reads an object of strings (null members as "").
func (d *inputReader) tags() ledger.Tags {
	if d.r.Null() || !d.object() {
		return nil
	}
	t := ledger.Tags{}
	for k, ok := d.next(); ok; k, ok = d.next() {
		t[k] = d.str()
	}
	return t
}

// anyMap reads an untyped object as the tree holds it.
func (d *inputReader) anyMap() map[string]any {
	if d.r.Null() {
		return nil
	}
	v, _ := d.r.Value()
	m, ok := v.(map[string]any)
	if !ok {
		d.stop()
	}
	return m
}

// purchaseData reads an object in canonical form from its text, without
// building its tree.
func (d *inputReader) purchaseData() ledger.PurchaseData {
	if d.r.Null() {
		return nil
	}
	text, ok := d.r.Raw()
	if !ok || text[0] != '{' {
		d.stop()
		return nil
	}
	p, err := ledger.NewPurchaseData(text)
	if err != nil {
		d.stop()
		return nil
	}
	return p
}

// anyList reads an untyped array as the tree holds it.
func (d *inputReader) anyList() []any {
	if d.r.Null() {
		return nil
	}
	v, _ := d.r.Value()
	a, ok := v.([]any)
	if !ok {
		d.stop()
	}
	return a
}

// structPtr reads an object into a new T with read, nil for null.
func structPtr[T any](d *inputReader, read func(*T)) *T {
	if d.r.Null() || !d.object() {
		return nil
	}
	p := new(T)
	read(p)
	return p
}

// readInput fills dst, a pointer to a zero input, from body, a JSON object
// that passed validation; false leaves the body to decodeTree (dst may then
// hold part of it), as does a type it does not read.
func readInput(v *validate.Validator, body []byte, dst any) bool {
	d := inputReader{r: v.NewReader(body)}
	if !d.object() {
		return false
	}
	switch in := dst.(type) {
	case *ledger.CardCreate:
		readCardCreate(&d, in)
	case *ledger.AuthorizationCreate:
		readAuthorizationCreate(&d, in)
	case *ledger.CaptureRequest:
		readCaptureRequest(&d, in)
	case *ledger.TransferCreate:
		readTransferCreate(&d, in)
	case *ledger.MerchantUpdate:
		readMerchantUpdate(&d, in)
	case *ledger.ScheduleCreate:
		readScheduleCreate(&d, in)
	case *ledger.AmountBody:
		readAmountBody(&d, in)
	case *ledger.EnrollmentBody:
		readEnrollmentBody(&d, in)
	case *ledger.BalanceTransferCreate:
		readBalanceTransferCreate(&d, in)
	case *ledger.FileCreate:
		readFileCreate(&d, in)
	case *ledger.ExternalLinkCreate:
		readExternalLinkCreate(&d, in)
	case *ledger.WebhookBody:
		readWebhookBody(&d, in)
	default:
		return false
	}
	return !d.stopped && d.r.End()
}

// The readers of the input types, one a type: functions rather than
// methods, so the types may live in another package than the HTTP edge.

func readCardCreate(d *inputReader, in *ledger.CardCreate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "type":
			in.Type = d.str()
		case "name":
			in.Name = d.str()
		case "number":
			in.Number = d.str()
		case "expiration_month":
			in.ExpirationMonth = d.int()
		case "expiration_year":
			in.ExpirationYear = d.int()
		case "security_code":
			in.SecurityCode = d.str()
		case "identity":
			in.Identity = d.str()
		case "address":
			in.Address = ledger.Address{}
			if !d.r.Null() && d.object() {
				readAddress(d, &in.Address)
			}
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readAddress(d *inputReader, a *ledger.Address) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "line1":
			a.Line1 = d.strPtr()
		case "line2":
			a.Line2 = d.strPtr()
		case "city":
			a.City = d.strPtr()
		case "region":
			a.Region = d.strPtr()
		case "postal_code":
			a.PostalCode = d.str()
		case "country":
			a.Country = d.strPtr()
		default:
			d.stop()
		}
	}
}

func readAuthorizationCreate(d *inputReader, in *ledger.AuthorizationCreate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "source":
			in.Source = d.str()
		case "merchant_identity":
			in.MerchantIdentity = d.str()
		case "merchant":
			in.Merchant = d.str()
		case "amount":
			in.Amount = d.int64()
		case "currency":
			in.Currency = d.str()
		case "processor":
			in.Processor = d.strPtr()
		case "tags":
			in.Tags = d.tags()
		case "idempotency_id":
			in.IdempotencyID = d.strPtr()
		case "additional_purchase_data":
			in.AdditionalPurchaseData = d.purchaseData()
		default:
			d.stop()
		}
	}
}

func readCaptureRequest(d *inputReader, in *ledger.CaptureRequest) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "capture_amount":
			in.CaptureAmount = d.int64()
		case "fee":
			in.Fee = d.int64Ptr()
		case "additional_purchase_data":
			in.AdditionalPurchaseData = d.purchaseData()
		default:
			d.stop()
		}
	}
}

func readTransferCreate(d *inputReader, in *ledger.TransferCreate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "source":
			in.Source = d.str()
		case "merchant":
			in.Merchant = d.str()
		case "amount":
			in.Amount = d.int64()
		case "fee":
			in.Fee = d.int64Ptr()
		case "currency":
			in.Currency = d.str()
		case "idempotency_id":
			in.IdempotencyID = d.strPtr()
		case "tags":
			in.Tags = d.tags()
		case "additional_purchase_data":
			in.AdditionalPurchaseData = d.purchaseData()
		default:
			d.stop()
		}
	}
}

func readMerchantUpdate(d *inputReader, in *ledger.MerchantUpdate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "level_two_level_three_data_enabled":
			in.LevelTwoLevelThreeDataEnabled = d.boolPtr()
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readScheduleCreate(d *inputReader, in *ledger.ScheduleCreate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "line_item_type":
			in.LineItemType = d.str()
		case "nickname":
			in.Nickname = d.str()
		case "subscription_type":
			in.SubscriptionType = d.str()
		case "period_offset":
			in.PeriodOffset = d.anyMap()
		case "fixed_time_interval_offset":
			in.FixedTimeIntervalOffset = d.anyMap()
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readAmountBody(d *inputReader, in *ledger.AmountBody) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "amount_type":
			in.AmountType = d.str()
		case "fee_amount_data":
			in.FeeAmountData = structPtr(d, func(f *feeAmountBody) {
				for name, ok := d.next(); ok; name, ok = d.next() {
					switch name {
					case "amount":
						f.Amount = d.int64Ptr()
					case "currency":
						f.Currency = d.strPtr()
					case "label":
						f.Label = d.strPtr()
					default:
						d.stop()
					}
				}
			})
		case "amount":
			in.Amount = d.int64Ptr()
		case "nickname":
			in.Nickname = d.strPtr()
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readEnrollmentBody(d *inputReader, in *ledger.EnrollmentBody) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "merchant":
			in.Merchant = d.str()
		case "nickname":
			in.Nickname = d.strPtr()
		case "started_at":
			in.StartedAt = d.strPtr()
		case "ended_at":
			in.EndedAt = d.strPtr()
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readBalanceTransferCreate(d *inputReader, in *ledger.BalanceTransferCreate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "amount":
			in.Amount = d.int64()
		case "currency":
			in.Currency = d.str()
		case "description":
			in.Description = d.str()
		case "source":
			in.Source = d.str()
		case "destination":
			in.Destination = d.str()
		case "processor_type":
			in.ProcessorType = d.str()
		case "external_reference_id":
			in.ExternalReferenceID = d.str()
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readFileCreate(d *inputReader, in *ledger.FileCreate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "display_name":
			in.DisplayName = d.str()
		case "linked_to":
			in.LinkedTo = d.str()
		case "linked_type":
			in.LinkedType = d.str()
		case "type":
			in.Type = d.str()
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readExternalLinkCreate(d *inputReader, in *ledger.ExternalLinkCreate) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "type":
			in.Type = d.str()
		case "duration":
			in.Duration = d.intPtr()
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readWebhookBody(d *inputReader, in *ledger.WebhookBody) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "url":
			in.URL = d.strPtr()
		case "enabled":
			in.Enabled = d.boolPtr()
		case "enabled_events":
			in.EnabledEvents = d.anyList()
		case "authentication":
			in.Authentication = structPtr(d, func(a *ledger.WebhookAuthBody) { readWebhookAuthBody(d, a) })
		case "tags":
			in.Tags = d.tags()
		default:
			d.stop()
		}
	}
}

func readWebhookAuthBody(d *inputReader, a *ledger.WebhookAuthBody) {
	for name, ok := d.next(); ok; name, ok = d.next() {
		switch name {
		case "type":
			a.Type = d.str()
		case "basic":
			a.Basic = structPtr(d, func(b *basicAuthBody) {
				for name, ok := d.next(); ok; name, ok = d.next() {
					switch name {
					case "username":
						b.Username = d.str()
					case "password":
						b.Password = d.str()
					default:
						d.stop()
					}
				}
			})
		case "bearer":
			a.Bearer = structPtr(d, func(b *bearerAuthBody) {
				for name, ok := d.next(); ok; name, ok = d.next() {
					switch name {
					case "token":
						b.Token = d.str()
					default:
						d.stop()
					}
				}
			})
		default:
			d.stop()
		}
	}
}

// The anonymous structs of the input types, named to be read: the same
// types (an alias of an identical struct type, tags included, is the type
// itself), so a field changed in inputs.go alone does not compile here.
type (
	feeAmountBody = struct {
		Amount   *int64  `json:"amount"`
		Currency *string `json:"currency"`
		Label    *string `json:"label"`
	}
	basicAuthBody = struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	bearerAuthBody = struct {
		Token string `json:"token"`
	}
)
