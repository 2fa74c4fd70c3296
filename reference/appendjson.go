package reference

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/reference/ledger"
)

// Encoding the hot resources (transfers, payment instruments,
// authorizations, disputes) without reflection: each view appends exactly the bytes
// json.Marshal writes for the record with its _links as a map (fields in
// declaration order, map keys sorted, strings escaped as encoding/json
// escapes them), which TestAppendJSONMatchesMarshal checks on every shape of
// record.

// jsonAppender is a view that appends its own JSON encoding; given nil, it
// allocates a buffer of about the size it needs.
type jsonAppender interface {
	AppendJSON(b []byte) []byte
}

// viewBytes is the buffer a view of a record encodes into, given nil: the
// record is about 1.5 KB besides its purchase data.
func viewBytes(b []byte, purchaseData int) []byte {
	if b == nil {
		b = make([]byte, 0, 1536+purchaseData)
	}
	return b
}

// objectWriter appends one JSON object, member by member.
type objectWriter struct {
	b       []byte
	members int
}

func openObject(b []byte) objectWriter { return objectWriter{b: append(b, '{')} }

func (w *objectWriter) close() []byte { return append(w.b, '}') }

// key starts a member; names are the package's own field names, which need
// no escaping.
func (w *objectWriter) key(name string) {
	if w.members > 0 {
		w.b = append(w.b, ',')
	}
	w.members++
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

func (w *objectWriter) str(name, v string) {
	w.key(name)
	w.b = ledger.AppendJSONString(w.b, v)
}

func (w *objectWriter) strPtr(name string, v *string) {
	if v == nil {
		w.null(name)
		return
	}
	w.str(name, *v)
}

func (w *objectWriter) int(name string, v int64) {
	w.key(name)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *objectWriter) int64Ptr(name string, v *int64) {
	if v == nil {
		w.null(name)
		return
	}
	w.int(name, *v)
}

// purchaseData writes purchase data, already in canonical form (nil: null).
func (w *objectWriter) purchaseData(name string, v ledger.PurchaseData) {
	w.key(name)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, v...)
}

func (w *objectWriter) bool(name string, v bool) {
	w.key(name)
	w.b = strconv.AppendBool(w.b, v)
}

func (w *objectWriter) null(name string) {
	w.key(name)
	w.b = append(w.b, "null"...)
}

func (w *objectWriter) Time(name string, t ledger.JSONTime) {
	w.key(name)
	w.b = t.AppendJSON(w.b)
}

func (w *objectWriter) timePtr(name string, t *ledger.JSONTime) {
	if t == nil {
		w.null(name)
		return
	}
	w.Time(name, *t)
}

func (w *objectWriter) strings(name string, v []string) {
	w.key(name)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, s := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = ledger.AppendJSONString(w.b, s)
	}
	w.b = append(w.b, ']')
}

// tags writes a string map with its keys sorted.
func (w *objectWriter) tags(name string, v ledger.Tags) {
	w.key(name)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	var buf [16]string // most records carry a few tags: sorted on the stack
	keys := buf[:0]
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.b = append(w.b, '{')
	for i, k := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = ledger.AppendJSONString(w.b, k)
		w.b = append(w.b, ':')
		w.b = ledger.AppendJSONString(w.b, v[k])
	}
	w.b = append(w.b, '}')
}

// rawOmitEmpty writes JSON the package encoded itself (compact, escaped as
// json.Marshal escapes), nothing when it is empty.
func (w *objectWriter) rawOmitEmpty(name string, v json.RawMessage) {
	if len(v) == 0 {
		return
	}
	w.key(name)
	w.b = append(w.b, v...)
}

// links writes _links with its names sorted: an order of indexes is
// sorted (by insertion: a view has a dozen links at most), not the links,
// five strings each.
func (w *objectWriter) links(l []namedLink) {
	w.key("_links")
	w.b = append(w.b, '{')
	var buf [16]uint8
	if len(l) > len(buf) {
		slices.SortFunc(l, func(a, b namedLink) int { return strings.Compare(a.name, b.name) })
		for n := range l {
			w.link(n, &l[n])
		}
	} else {
		order := buf[:len(l)]
		for i := range l {
			j := i
			for ; j > 0 && l[order[j-1]].name > l[i].name; j-- {
				order[j] = order[j-1]
			}
			order[j] = uint8(i)
		}
		for n, i := range order {
			w.link(n, &l[i])
		}
	}
	w.b = append(w.b, '}')
}

// link writes k, the nth member of _links.
func (w *objectWriter) link(n int, k *namedLink) {
	if n > 0 {
		w.b = append(w.b, ',')
	}
	w.b = ledger.AppendJSONString(w.b, k.name)
	w.b = append(w.b, `:{"href":`...)
	w.b = ledger.AppendJSONParts(w.b, &k.href)
	w.b = append(w.b, '}')
}

func (w *objectWriter) meta(m *ledger.Meta) {
	w.str("id", m.ID)
	w.Time("created_at", m.CreatedAt)
	w.Time("updated_at", m.UpdatedAt)
}

func (v transferView) AppendJSON(b []byte) []byte {
	t := &v.Transfer
	w := openObject(viewBytes(b, len(t.AdditionalPurchaseData)))
	w.meta(&t.Meta)
	w.int("amount", t.Amount)
	w.tags("tags", t.Tags)
	w.str("state", t.State)
	w.str("trace_id", t.TraceID)
	w.str("currency", t.Currency)
	w.str("application", t.Application)
	w.strPtr("source", t.Source)
	w.strPtr("destination", t.Destination)
	w.timePtr("ready_to_settle_at", t.ReadyToSettleAt)
	w.str("externally_funded", t.ExternallyFunded)
	w.int("fee", t.Fee)
	w.strPtr("statement_descriptor", t.StatementDescriptor)
	w.str("type", t.Type)
	w.str("subtype", t.Subtype)
	w.strings("messages", t.Messages)
	w.null("raw")
	w.strPtr("idempotency_id", t.IdempotencyID)
	w.str("merchant_identity", t.MerchantIdentity)
	w.rawOmitEmpty("additional_purchase_data", t.AdditionalPurchaseData)
	if a := t.Adjustment; a != nil {
		w.int("amount_requested", a.AmountRequested)
		w.null("additional_buyer_charges")
		w.null("additional_healthcare_data")
		w.null("address_verification")
		w.null("failure_code")
		w.null("failure_message")
		w.null("security_code_verification")
	}
	var buf [12]namedLink
	w.links(v.linkList(buf[:0]))
	return w.close()
}

// MarshalJSON encodes the view with appendJSON (webhook events embed it).
func (v transferView) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

func (v paymentInstrumentView) AppendJSON(b []byte) []byte {
	p := &v.PaymentInstrument
	w := openObject(viewBytes(b, 0))
	w.meta(&p.Meta)
	w.str("application", p.Application)
	w.str("fingerprint", p.Fingerprint)
	w.tags("tags", p.Tags)
	w.int("expiration_month", int64(p.ExpirationMonth))
	w.int("expiration_year", int64(p.ExpirationYear))
	w.str("bin", p.Bin)
	w.str("last_four", p.LastFour)
	w.str("brand", p.Brand)
	w.str("card_type", p.CardType)
	w.str("name", p.Name)
	w.key("address")
	a := openObject(w.b)
	a.strPtr("line1", p.Address.Line1)
	a.strPtr("line2", p.Address.Line2)
	a.strPtr("city", p.Address.City)
	a.strPtr("region", p.Address.Region)
	a.str("postal_code", p.Address.PostalCode)
	a.strPtr("country", p.Address.Country)
	w.b = a.close()
	w.str("address_verification", p.AddressVerification)
	w.str("security_code_verification", p.SecurityCodeVerification)
	w.str("instrument_type", p.InstrumentType)
	w.str("type", p.Type)
	w.str("currency", p.Currency)
	w.str("identity", p.Identity)
	var buf [12]namedLink
	w.links(v.linkList(buf[:0]))
	return w.close()
}

// MarshalJSON encodes the view with appendJSON (webhook events embed it).
func (v paymentInstrumentView) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

func (v authorizationView) AppendJSON(b []byte) []byte {
	a := &v.Authorization
	w := openObject(viewBytes(b, len(a.AdditionalPurchaseData)))
	w.meta(&a.Meta)
	w.str("application", a.Application)
	w.int("amount", a.Amount)
	w.tags("tags", a.Tags)
	w.str("state", a.State)
	w.str("currency", a.Currency)
	w.strPtr("transfer", a.Transfer)
	w.strings("messages", a.Messages)
	w.null("raw")
	w.str("trace_id", a.TraceID)
	w.str("source", a.Source)
	w.str("merchant_identity", a.MerchantIdentity)
	w.strPtr("3ds_redirect_url", a.ThreeDSRedirectURL)
	w.bool("is_void", a.IsVoid)
	w.str("void_state", a.VoidState)
	w.Time("expires_at", a.ExpiresAt)
	w.strPtr("idempotency_id", a.IdempotencyID)
	w.rawOmitEmpty("additional_purchase_data", a.AdditionalPurchaseData)
	var buf [12]namedLink
	w.links(v.linkList(buf[:0]))
	return w.close()
}

// MarshalJSON encodes the view with appendJSON (webhook events embed it).
func (v authorizationView) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

func (v disputeView) AppendJSON(b []byte) []byte {
	d := &v.Dispute
	w := openObject(viewBytes(b, 0))
	w.meta(&d.Meta)
	w.str("application", d.Application)
	w.tags("tags", d.Tags)
	w.int("amount", d.Amount)
	w.str("state", d.State)
	w.str("transfer", d.Transfer)
	w.str("reason", d.Reason)
	w.strPtr("message", d.Message)
	w.strPtr("action", d.Action)
	w.str("identity", d.Identity)
	w.Time("occurred_at", d.OccurredAt)
	w.Time("respond_by", d.RespondBy)
	w.key("dispute_details")
	details := openObject(w.b)
	details.str("arn", d.DisputeDetails.ARN)
	w.b = details.close()
	var buf [12]namedLink
	w.links(v.linkList(buf[:0]))
	return w.close()
}

// MarshalJSON encodes the view with appendJSON (lists and webhook events
// embed it).
func (v disputeView) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

func (v balanceTransferView) AppendJSON(b []byte) []byte {
	t := &v.BalanceTransfer
	if b == nil {
		b = make([]byte, 0, 640)
	}
	w := openObject(b)
	w.meta(&t.Meta)
	w.int("amount", t.Amount)
	w.str("currency", t.Currency)
	w.str("description", t.Description)
	w.str("source", t.Source)
	w.str("destination", t.Destination)
	w.str("external_reference_id", t.ExternalReferenceID)
	w.str("reference_id", t.ReferenceID)
	w.str("processor_type", t.ProcessorType)
	w.str("state", t.State)
	w.tags("tags", t.Tags)
	var buf [1]namedLink
	w.links(v.linkList(buf[:0]))
	return w.close()
}

// MarshalJSON encodes the view with appendJSON (webhook events embed it).
func (v balanceTransferView) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

// appendJSON writes the list envelope as json.Marshal does (_embedded,
// _links, page), the items through their own appendJSON and the links from
// the list's URL and the query without building their strings; ok is false
// when the items have no encoder, and the caller encodes by reflection
// instead.
func (l listEnvelope) AppendJSON(b []byte) ([]byte, bool) {
	if l.items == nil {
		return nil, false
	}
	w := openObject(b)
	w.key("_embedded")
	w.b = append(w.b, '{')
	w.b = ledger.AppendJSONString(w.b, l.plural)
	w.b = append(w.b, ':')
	var ok bool
	if w.b, ok = l.items.AppendJSON(w.b); !ok {
		return nil, false
	}
	w.b = append(w.b, '}')
	w.key("_links") // names sorted: next, prev, self
	w.b = append(w.b, '{')
	if next, ok := l.next(); ok {
		w.b = l.appendLink(append(w.b, `"next":`...), next)
		w.b = append(w.b, ',')
	}
	if prev, ok := l.prev(); ok {
		w.b = l.appendLink(append(w.b, `"prev":`...), prev)
		w.b = append(w.b, ',')
	}
	w.b = l.appendLink(append(w.b, `"self":`...), l.q.Offset)
	w.b = append(w.b, '}')
	w.key("page")
	p := openObject(w.b)
	p.int("offset", int64(l.Page.Offset))
	p.int("limit", int64(l.Page.Limit))
	p.int("count", int64(l.Page.Count))
	w.b = p.close()
	return w.close(), true
}

// appendLink writes {"href":…} of the page at offset: the list's URL and
// listQuery.encode's query, its & escaped as json.Marshal escapes it.
func (l listEnvelope) appendLink(b []byte, offset int) []byte {
	b = append(b, `{"href":`...)
	if !ledger.PlainJSON(l.self) {
		b = ledger.AppendJSONString(b, l.self+l.q.Encode(offset))
		return append(b, '}')
	}
	b = append(b, '"')
	b = append(b, l.self...)
	b = append(b, "?offset="...)
	b = strconv.AppendInt(b, int64(offset), 10)
	b = append(b, `\u0026limit=`...)
	b = strconv.AppendInt(b, int64(l.q.Limit), 10)
	for _, k := range l.q.Sort {
		b = append(b, `\u0026sort=`...)
		b = append(b, k.Field...) // one of sortableFields
		if k.Desc {
			b = append(b, ",desc"...)
		} else {
			b = append(b, ",asc"...)
		}
	}
	return append(b, `"}`...)
}

// viewList is a page's views.
type viewList[V any] []V

func (l viewList[V]) slice() any { return []V(l) }

// appendJSON writes the views as a JSON array through their own
// appendJSON; ok is false when V has none.
func (l viewList[V]) AppendJSON(b []byte) ([]byte, bool) {
	if _, ok := any((*V)(nil)).(jsonAppender); !ok {
		return nil, false
	}
	if l == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = any(&l[i]).(jsonAppender).AppendJSON(b)
	}
	return append(b, ']'), true
}
