package judging

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/conform-kit/conform/validate"
)

// ErrProfile is wrapped by every error about a profile's content: an unknown
// key, a value of the wrong type, a value the key does not allow.
var ErrProfile = errors.New("judging: profile")

// Profile is a target's declared choice for every assumed decision of
// the kit (features/README.md, "Assumptions"; the profile keys of schemas/judging.json; the JSON name of each
// field is its key). The kit checks these choices instead of the
// reference's: a server that keeps its declared profile passes. Get one
// from Judge.DefaultProfile (the reference's choices) or
// Judge.DecodeProfile (a JSON object over the defaults); write one with
// Judge.EncodeProfile. Maps and slices are shared by copies of a
// Profile: change a Clone.
type Profile struct {
	CreateStatus                 int                    `json:"create_status"`
	SuccessStatusByOp            map[string]int         `json:"success_status"`
	Refusals                     map[string]RefusalForm `json:"refusals"`
	ErrorFieldForm               string                 `json:"error_field_form"`
	ErrorFieldMember             string                 `json:"error_field_member"`
	IDForm                       string                 `json:"id_form"`
	TimestampPrecision           int                    `json:"timestamp_precision"`
	ResponseContentType          string                 `json:"response_content_type"`
	RequestContentType           string                 `json:"request_content_type"`
	RequestMediaTypes            []string               `json:"request_media_types"`
	AcceptUnserved               string                 `json:"accept_unserved"`
	ListMaxLimit                 int                    `json:"list_max_limit"`
	ListOverMax                  string                 `json:"list_over_max"`
	EventLayout                  string                 `json:"event_layout"`
	EventFields                  map[string]string      `json:"event_fields"`
	SignatureScheme              string                 `json:"signature_scheme"`
	SignatureHeader              string                 `json:"signature_header"`
	SigningKeyForm               string                 `json:"signing_key_form"`
	DeclineTriggerAmount         int64                  `json:"decline_trigger_amount"`
	DisputeTriggerAmount         int64                  `json:"dispute_trigger_amount"`
	FileRejectTrigger            string                 `json:"file_reject_trigger"`
	MultiCapture                 bool                   `json:"multi_capture"`
	CaptureFeeBound              string                 `json:"capture_fee_bound"`
	OperationRoles               map[string][]string    `json:"operation_roles"`
	APIKeyLiteral                string                 `json:"api_key_literal"`
	WebhookRoutes                map[string]string      `json:"webhook_routes"`
	AlsoMethods                  map[string][]string    `json:"also_methods"`
	Extensions                   []string               `json:"extensions"`
	FilePayloads                 string                 `json:"file_payloads"`
	AuthorizationMerchantField   string                 `json:"authorization_merchant_field"`
	SubscriptionAmountUpdateForm string                 `json:"subscription_amount_update_form"`
	AuthorizationExpiryHours     int                    `json:"authorization_expiry_hours"`
	IdempotencyReplay            string                 `json:"idempotency_replay"`
	CardNumberCheck              string                 `json:"card_number_check"`
	ResourceValues               string                 `json:"resource_values"`
	ReferenceRules               string                 `json:"reference_rules"`
	RequestRules                 string                 `json:"request_rules"`
	ResourceEvents               string                 `json:"resource_events"`
	ObservedOnce                 []string               `json:"observed_once"`
}

// Values of the profile keys that choose among names (judging.json lists
// them under each key's "values").
const (
	Unchecked = "unchecked" // event_layout, signature_scheme, file_payloads, idempotency_replay, card_number_check, resource_values, reference_rules, request_rules, resource_events: the kit checks only what the spec states

	ListOverMaxRefuse = "refuse" // list_over_max: a limit above the maximum is refused (invalid_field)
	ListOverMaxClamp  = "clamp"  // list_over_max: a limit above the maximum is clamped to it

	EventLayoutEmbedded = "embedded" // event_layout: schema event
	EventLayoutFields   = "fields"   // event_layout: the type and the resource where event_fields says

	SignatureTimestampHMAC = "timestamp_hmac_sha256" // signature_scheme: "timestamp=<unix>, sig=<hex HMAC-SHA256(secret, "<timestamp>:<body>")>"

	FeeBoundCapture       = "capture_amount"       // capture_fee_bound: fee ≤ capture_amount
	FeeBoundAuthorization = "authorization_amount" // capture_fee_bound: fee ≤ the authorization's amount

	FilePayloadsFinix = "finix" // file_payloads: the real API's field names (schemas file, external_link, ...)

	MerchantFieldIdentity = "merchant_identity" // authorization_merchant_field: the argument table's form
	MerchantFieldMerchant = "merchant"          // authorization_merchant_field: the example's form

	AmountUpdateNested   = "fee_amount_data" // subscription_amount_update_form: the table's form
	AmountUpdateTopLevel = "top_level"       // subscription_amount_update_form: the example's form

	IdempotencyOriginal = "original" // idempotency_replay: the first status and body again

	CardNumberLuhn = "luhn" // card_number_check: 12 to 19 digits passing the Luhn check

	AsReference = "reference" // resource_values, reference_rules, request_rules, resource_events: the reference's behaviour

	FieldFormPointer = "pointer" // error_field_form: /a/b/0/c
	FieldFormDotted  = "dotted"  // error_field_form: a.b.0.c (or a.b[0].c)
	FieldFormBare    = "bare"    // error_field_form: c
	FieldFormNone    = "none"    // error_field_form: no item names the field

	AcceptRefuse = "refuse" // accept_unserved: refused as not_acceptable
	AcceptIgnore = "ignore" // accept_unserved: answered as if Accept were absent
)

// RefusalForm is a declared form of a kind of refusal: the statuses and the
// error codes a target answers it with, and per operation where the target
// answers it otherwise. In a profile file "status" is one status (422) or
// the list of them ([400, 415]), "codes" the codes (any of them; [] accepts
// any code) and "operations" the forms by operation id:
//
//	{"status": 409, "codes": ["ALREADY_CAPTURED", "IDEMPOTENCY_REUSED"],
//	 "operations": {"files.external_upload": {"status": 401}}}
type RefusalForm struct {
	Status        int      // the first status
	OtherStatuses []int    // further statuses the target answers the kind with
	Codes         []string // any of them; empty accepts any code
	// Operations are the forms of the operations (by id) whose refusal of
	// this kind differs: a status replaces the kind's statuses, codes its
	// codes (nil codes keep the kind's).
	Operations map[string]RefusalForm
}

// refusalFormJSON is RefusalForm in a profile file.
type refusalFormJSON struct {
	Status     json.RawMessage            `json:"status,omitempty"`
	Codes      *[]string                  `json:"codes,omitempty"`
	Operations map[string]json.RawMessage `json:"operations,omitempty"`
}

// Statuses are every status the form accepts, the first first.
func (r RefusalForm) Statuses() []int {
	if r.Status == 0 {
		return slices.Clone(r.OtherStatuses)
	}
	return append([]int{r.Status}, r.OtherStatuses...)
}

// StatusMatches reports whether status is one of the declared ones.
func (r RefusalForm) StatusMatches(status int) bool {
	return status == r.Status || slices.Contains(r.OtherStatuses, status)
}

// CodeMatches reports whether one of an envelope's codes is a declared code
// (always true when no code is declared).
func (r RefusalForm) CodeMatches(codes []string) bool {
	if len(r.Codes) == 0 {
		return true
	}
	for _, c := range codes {
		if slices.Contains(r.Codes, c) {
			return true
		}
	}
	return false
}

// String renders the form as "422 INVALID_FIELD" ("402 DECLINED|PAYMENT_DECLINED",
// "400|415 any code"); per-operation forms are not shown.
func (r RefusalForm) String() string {
	st := make([]string, 0, 1+len(r.OtherStatuses))
	for _, s := range r.Statuses() {
		st = append(st, strconv.Itoa(s))
	}
	if len(r.Codes) == 0 {
		return fmt.Sprintf("%s any code", strings.Join(st, "|"))
	}
	return fmt.Sprintf("%s %s", strings.Join(st, "|"), strings.Join(r.Codes, "|"))
}

// Clone returns a deep copy.
func (r RefusalForm) Clone() RefusalForm {
	r.OtherStatuses = slices.Clone(r.OtherStatuses)
	r.Codes = slices.Clone(r.Codes)
	if r.Operations != nil {
		ops := make(map[string]RefusalForm, len(r.Operations))
		for id, o := range r.Operations {
			ops[id] = o.Clone()
		}
		r.Operations = ops
	}
	return r
}

// ForOperation is the form of the kind for one operation: its override
// (statuses, codes) over the kind's, without per-operation forms.
func (r RefusalForm) ForOperation(opID string) RefusalForm {
	o, ok := r.Operations[opID]
	f := r.Clone()
	f.Operations = nil
	if !ok {
		return f
	}
	if o.Status != 0 {
		f.Status, f.OtherStatuses = o.Status, slices.Clone(o.OtherStatuses)
	}
	if o.Codes != nil {
		f.Codes = slices.Clone(o.Codes)
	}
	return f
}

// MarshalJSON writes the profile file's form: status as a number when it
// is one, else a list; codes always (a per-operation form only when it
// replaces the kind's).
func (r RefusalForm) MarshalJSON() ([]byte, error) { return r.marshal(true) }

func (r RefusalForm) marshal(top bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{")
	sep := ""
	if r.Status != 0 {
		var st any = r.Status
		if len(r.OtherStatuses) > 0 {
			st = r.Statuses()
		}
		sv, _ := json.Marshal(st)
		fmt.Fprintf(&b, `"status":%s`, sv)
		sep = ","
	}
	if top || r.Codes != nil {
		cv, _ := json.Marshal(nonNilCodes(r.Codes))
		fmt.Fprintf(&b, `%s"codes":%s`, sep, cv)
		sep = ","
	}
	if len(r.Operations) > 0 {
		fmt.Fprintf(&b, `%s"operations":{`, sep)
		for i, id := range slices.Sorted(maps.Keys(r.Operations)) {
			ov, err := r.Operations[id].marshal(false)
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b.WriteString(",")
			}
			idv, _ := json.Marshal(id)
			fmt.Fprintf(&b, "%s:%s", idv, ov)
		}
		b.WriteString("}")
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

func nonNilCodes(c []string) []string {
	if c == nil {
		return []string{}
	}
	return c
}

// UnmarshalJSON reads the profile file's form over r: what the object
// gives replaces r's (status, codes), operations merge by id. Unknown
// members are refused.
func (r *RefusalForm) UnmarshalJSON(data []byte) error {
	var in refusalFormJSON
	if err := strictUnmarshal(data, &in); err != nil {
		return err
	}
	if len(in.Status) > 0 {
		var one int
		var many []int
		switch {
		case json.Unmarshal(in.Status, &one) == nil:
			r.Status, r.OtherStatuses = one, nil
		case json.Unmarshal(in.Status, &many) == nil && len(many) > 0:
			r.Status, r.OtherStatuses = many[0], slices.Compact(slices.Clone(many[1:]))
		default:
			return fmt.Errorf("status %s: want a status or a non-empty list of statuses", in.Status)
		}
	}
	if in.Codes != nil {
		r.Codes = nonNilCodes(*in.Codes)
	}
	if len(in.Operations) > 0 {
		ops := make(map[string]RefusalForm, len(r.Operations)+len(in.Operations))
		maps.Copy(ops, r.Operations)
		for id, raw := range in.Operations {
			var o RefusalForm
			if err := o.UnmarshalJSON(raw); err != nil {
				return fmt.Errorf("operations.%s: %w", id, err)
			}
			if len(o.Operations) > 0 {
				return fmt.Errorf("operations.%s: an operation's form has no operations of its own", id)
			}
			ops[id] = o
		}
		r.Operations = ops
	}
	return nil
}

// SuccessStatus is the status the operation answers with on success:
// success_status for it, else create_status for the operations whose table
// status is 201, else the table's status.
func (p Profile) SuccessStatus(op validate.Operation) int {
	if s, ok := p.SuccessStatusByOp[op.ID]; ok {
		return s
	}
	if op.Status == 201 {
		return p.CreateStatus
	}
	return op.Status
}

// Refusal is the declared statuses and codes of a kind of refusal (Refusal*
// constants), with its per-operation forms; the zero RefusalForm for an
// unknown kind.
func (p Profile) Refusal(kind string) RefusalForm {
	return p.Refusals[kind].Clone()
}

// RefusalFor is the declared form of a kind of refusal for one operation
// (RefusalForm.ForOperation); opID "" is the kind's form.
func (p Profile) RefusalFor(kind, opID string) RefusalForm {
	return p.Refusals[kind].ForOperation(opID)
}

// Roles are the roles that may call the operation: operation_roles for it,
// else the table's.
func (p Profile) Roles(op validate.Operation) []string {
	if r, ok := p.OperationRoles[op.ID]; ok {
		return slices.Clone(r)
	}
	return slices.Clone(op.Roles)
}

// Route is the method and path pattern of the operation: webhook_routes for
// the webhook create and update operations, else the table's.
func (p Profile) Route(op validate.Operation) (method, path string) {
	if r, ok := p.WebhookRoutes[op.ID]; ok {
		if m, pth, ok := strings.Cut(r, " "); ok {
			return m, pth
		}
	}
	return op.Method, op.Path
}

// Offers reports whether the target offers the operation: every operation
// the spec names, and the extensions the profile lists.
func (p Profile) Offers(op validate.Operation) bool {
	return op.Assumed != "extensions" || slices.Contains(p.Extensions, op.ID)
}

// IDPattern is the anchored pattern of the ids of a prefix in the declared
// form ("AU" → ^AU(?:[0-9A-Za-z]{22})$).
func (p Profile) IDPattern(prefix string) (*regexp.Regexp, error) {
	re, err := regexp.Compile("^" + regexp.QuoteMeta(prefix) + "(?:" + p.IDForm + ")$")
	if err != nil {
		return nil, fmt.Errorf("%w: id_form: %w", ErrProfile, err)
	}
	return re, nil
}

// TimestampPattern is the anchored pattern of a timestamp of the declared
// precision (RFC 3339 UTC, fractional seconds, Z).
func (p Profile) TimestampPattern() *regexp.Regexp {
	return regexp.MustCompile("^" + timestampFraction(p.TimestampPrecision) + "$")
}

func timestampFraction(digits int) string {
	frac := "[0-9]+"
	if digits > 0 {
		frac = fmt.Sprintf("[0-9]{%d}", digits)
	}
	return `[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.` + frac + "Z"
}

// ContentTypeMatches reports whether a Content-Type header names the
// declared response media type (parameters ignored, case-insensitive).
func (p Profile) ContentTypeMatches(header string) bool {
	mt, _, err := mime.ParseMediaType(header)
	return err == nil && strings.EqualFold(mt, p.ResponseContentType)
}

// DeclineTrigger is the amount that declines, if the target has one.
func (p Profile) DeclineTrigger() (int64, bool) {
	return p.DeclineTriggerAmount, p.DeclineTriggerAmount > 0
}

// DisputeTrigger is the sale amount that opens a dispute, if the target has one.
func (p Profile) DisputeTrigger() (int64, bool) {
	return p.DisputeTriggerAmount, p.DisputeTriggerAmount > 0
}

// Clone returns a deep copy.
func (p Profile) Clone() Profile {
	p.SuccessStatusByOp = maps.Clone(p.SuccessStatusByOp)
	refusals := make(map[string]RefusalForm, len(p.Refusals))
	for k, r := range p.Refusals {
		refusals[k] = r.Clone()
	}
	p.Refusals = refusals
	roles := make(map[string][]string, len(p.OperationRoles))
	for k, r := range p.OperationRoles {
		roles[k] = slices.Clone(r)
	}
	p.OperationRoles = roles
	p.WebhookRoutes = maps.Clone(p.WebhookRoutes)
	p.EventFields = maps.Clone(p.EventFields)
	p.Extensions = slices.Clone(p.Extensions)
	p.RequestMediaTypes = slices.Clone(p.RequestMediaTypes)
	p.ObservedOnce = slices.Clone(p.ObservedOnce)
	return p
}

// Value returns the JSON value of a profile key.
func (p Profile) Value(key string) (json.RawMessage, bool) {
	f, ok := profileField(reflect.ValueOf(&p).Elem(), key)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(f.Interface())
	if err != nil { // cannot happen: the fields are plain data
		return nil, false
	}
	return b, true
}

// DefaultProfile returns the reference's choices (the defaults of
// judging.json; refusals from the refusals table, extensions every
// extension operation).
func (j *Judge) DefaultProfile() Profile { return j.profile.Clone() }

// DecodeProfile reads a profile: a JSON object of profile keys over the
// defaults. A key left out keeps its default; map-valued keys (refusals,
// success_status, operation_roles, webhook_routes, event_fields) merge entry by entry, and
// a refusals entry may give only status or only codes. Unknown keys and
// values a key does not allow are refused with an error wrapping ErrProfile
// that names the key; so is a key the kit does not judge (judging.json
// not_judged), with the reason.
func (j *Judge) DecodeProfile(data []byte) (Profile, error) {
	return j.MergeProfile(j.DefaultProfile(), data)
}

// LoadProfile reads a profile file (DecodeProfile).
func (j *Judge) LoadProfile(path string) (Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("judging: reading profile: %w", err)
	}
	p, err := j.DecodeProfile(data)
	if err != nil {
		return Profile{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// MergeProfile applies a JSON object of profile keys over base (which it
// does not change), as DecodeProfile does over the defaults.
func (j *Judge) MergeProfile(base Profile, data []byte) (Profile, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return Profile{}, fmt.Errorf("%w: want a JSON object of profile keys: %v", ErrProfile, err)
	}
	p := base.Clone()
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		if err := j.setProfileKey(&p, key, obj[key]); err != nil {
			return Profile{}, err
		}
	}
	return p, nil
}

// ProfileDifference is a key whose declared value differs from the default.
type ProfileDifference struct {
	Key      string
	Default  json.RawMessage
	Declared json.RawMessage
}

// String renders "create_status: 200 (default 201)".
func (d ProfileDifference) String() string {
	return fmt.Sprintf("%s: %s (default %s)", d.Key, d.Declared, d.Default)
}

// ProfileDifferences lists, in table order, the keys where p differs from
// the reference's choices.
func (j *Judge) ProfileDifferences(p Profile) []ProfileDifference {
	var out []ProfileDifference
	for _, k := range j.table.Profile {
		def, _ := j.profile.Value(k.Key)
		got, _ := p.Value(k.Key)
		if !bytes.Equal(def, got) {
			out = append(out, ProfileDifference{Key: k.Key, Default: def, Declared: got})
		}
	}
	return out
}

// EncodeProfile writes p as an indented JSON object in table order that
// DecodeProfile reads back to the same Profile: every key when all is set,
// else only the keys that differ from the defaults and, of a map-valued key,
// only the entries that differ (DecodeProfile merges entries over the
// defaults).
func (j *Judge) EncodeProfile(w io.Writer, p Profile, all bool) error {
	var b bytes.Buffer
	b.WriteString("{")
	n := 0
	for _, k := range j.table.Profile {
		val, _ := p.Value(k.Key)
		if !all {
			def, _ := j.profile.Value(k.Key)
			if bytes.Equal(def, val) {
				continue
			}
			if val = changedEntries(def, val); val == nil {
				continue
			}
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, val, "  ", "  "); err != nil {
			return fmt.Errorf("judging: encoding profile key %s: %w", k.Key, err)
		}
		if n > 0 {
			b.WriteString(",")
		}
		n++
		fmt.Fprintf(&b, "\n  %q: %s", k.Key, ind.Bytes())
	}
	if n > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("judging: writing profile: %w", err)
	}
	return nil
}

// changedEntries returns val without the entries it shares with def when
// both are JSON objects (nil when none is left), else val unchanged.
func changedEntries(def, val json.RawMessage) json.RawMessage {
	var defs, vals map[string]json.RawMessage
	if json.Unmarshal(val, &vals) != nil || vals == nil || json.Unmarshal(def, &defs) != nil {
		return val
	}
	for name, e := range vals {
		if d, ok := defs[name]; ok && SameJSON(d, e) {
			delete(vals, name)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	out, err := json.Marshal(vals)
	if err != nil {
		return val
	}
	return out
}

// SameJSON reports whether two JSON values are equal by content (member
// order and white space aside), as profile values compare.
func SameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}

// profileField finds the field of a Profile whose JSON name is key.
func profileField(pv reflect.Value, key string) (reflect.Value, bool) {
	t := pv.Type()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == key {
			return pv.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// profileKeys are the JSON names of Profile's fields, in field order.
func profileKeys() []string {
	t := reflect.TypeFor[Profile]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, tag)
	}
	return out
}

// newDefaultProfile builds the reference's profile from judging.json and
// checks that the table's keys and Profile's fields are the same set.
func newDefaultProfile(jd *Judge) (Profile, error) {
	j := jd.table
	inTable := map[string]bool{}
	for _, k := range j.Profile {
		inTable[k.Key] = true
	}
	for _, key := range profileKeys() {
		if !inTable[key] {
			return Profile{}, fmt.Errorf("judging: %s: profile key %q of Profile is not in the table", judgingFile, key)
		}
	}
	p := Profile{Refusals: map[string]RefusalForm{}}
	for _, k := range j.Profile {
		if _, ok := profileField(reflect.ValueOf(&p).Elem(), k.Key); !ok {
			return Profile{}, fmt.Errorf("judging: %s: profile key %q has no field in Profile", judgingFile, k.Key)
		}
		def := k.Default
		switch {
		case k.Key == "refusals":
			for kind, r := range j.Refusals {
				p.Refusals[kind] = RefusalForm{Status: r.Status, Codes: slices.Clone(r.Codes)}
			}
			continue
		case k.Key == "extensions":
			ext := []string{}
			for _, op := range jd.v.Operations() {
				if op.Assumed == "extensions" {
					ext = append(ext, op.ID)
				}
			}
			p.Extensions = ext
			continue
		}
		if err := jd.setProfileKey(&p, k.Key, def); err != nil {
			return Profile{}, fmt.Errorf("judging: %s: default: %w", judgingFile, err)
		}
	}
	return p, nil
}

// setProfileKey decodes raw into the field of key and checks the value.
func (j *Judge) setProfileKey(p *Profile, key string, raw json.RawMessage) error {
	f, ok := profileField(reflect.ValueOf(p).Elem(), key)
	if why, notJudged := j.table.NotJudged[key]; notJudged && !ok {
		return fmt.Errorf("%w: %s is not a profile key: %s; remove it from the profile", ErrProfile, key, why)
	}
	if !ok {
		return fmt.Errorf("%w: unknown key %q (known keys: %s)", ErrProfile, key, strings.Join(profileKeys(), ", "))
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return fmt.Errorf("%w: %s: null is not a value of this key", ErrProfile, key)
	}
	if f.Kind() == reflect.Map {
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			return fmt.Errorf("%w: %s: want an object: %v", ErrProfile, key, err)
		}
		merged := reflect.MakeMap(f.Type())
		for _, k := range f.MapKeys() {
			merged.SetMapIndex(k, f.MapIndex(k))
		}
		for _, name := range slices.Sorted(maps.Keys(entries)) {
			elem := reflect.New(f.Type().Elem())
			if old := f.MapIndex(reflect.ValueOf(name)); old.IsValid() {
				elem.Elem().Set(old)
				if r, ok := old.Interface().(RefusalForm); ok { // merge, but never share the codes
					elem.Elem().Set(reflect.ValueOf(r.Clone()))
				}
			}
			if err := strictUnmarshal(entries[name], elem.Interface()); err != nil {
				return fmt.Errorf("%w: %s.%s: %v", ErrProfile, key, name, err)
			}
			merged.SetMapIndex(reflect.ValueOf(name), elem.Elem())
		}
		f.Set(merged)
	} else {
		val := reflect.New(f.Type())
		if err := strictUnmarshal(raw, val.Interface()); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrProfile, key, err)
		}
		f.Set(val.Elem())
	}
	if err := j.checkProfileKey(p, key); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrProfile, key, err)
	}
	return nil
}

func strictUnmarshal(raw json.RawMessage, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// checkProfileKey checks the value of one key.
func (j *Judge) checkProfileKey(p *Profile, key string) error {
	for _, k := range j.table.Profile {
		if k.Key == key && len(k.Values) > 0 {
			val, _ := p.Value(key)
			var s string
			if err := json.Unmarshal(val, &s); err != nil || !slices.Contains(k.Values, s) {
				return fmt.Errorf("%s is not one of %s", val, strings.Join(k.Values, ", "))
			}
		}
	}
	op := func(id string) (validate.Operation, error) {
		o, ok := j.v.Operation(id)
		if !ok {
			return validate.Operation{}, fmt.Errorf("unknown operation %q", id)
		}
		return o, nil
	}
	switch key {
	case "create_status":
		return success(p.CreateStatus)
	case "success_status":
		for id, s := range p.SuccessStatusByOp {
			if _, err := op(id); err != nil {
				return err
			}
			if err := success(s); err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
		}
	case "refusals":
		for kind, r := range p.Refusals {
			if _, ok := j.table.Refusals[kind]; !ok {
				return fmt.Errorf("unknown kind of refusal %q (known: %s)", kind, strings.Join(slices.Sorted(maps.Keys(j.table.Refusals)), ", "))
			}
			if err := checkRefusalForm(kind, r, op); err != nil {
				return err
			}
		}
	case "id_form", "signing_key_form":
		val := p.IDForm
		if key == "signing_key_form" {
			val = p.SigningKeyForm
		}
		if val == "" {
			return errors.New("empty pattern")
		}
		if _, err := regexp.Compile("^(?:" + val + ")$"); err != nil {
			return err
		}
	case "timestamp_precision":
		if p.TimestampPrecision < 0 || p.TimestampPrecision > 9 {
			return fmt.Errorf("%d is not 0 (any) to 9 digits", p.TimestampPrecision)
		}
	case "response_content_type", "request_content_type":
		val := p.ResponseContentType
		if key == "request_content_type" {
			val = p.RequestContentType
		}
		return mediaType(val)
	case "request_media_types":
		for _, t := range p.RequestMediaTypes {
			if err := mediaType(t); err != nil {
				return err
			}
		}
	case "list_max_limit":
		if p.ListMaxLimit < 20 {
			return fmt.Errorf("%d is below the default limit 20 (spec section 2.12)", p.ListMaxLimit)
		}
	case "decline_trigger_amount", "dispute_trigger_amount":
		if p.DeclineTriggerAmount < 0 || p.DisputeTriggerAmount < 0 {
			return errors.New("negative amount (0: no trigger)")
		}
	case "operation_roles":
		for id, roles := range p.OperationRoles {
			o, err := op(id)
			if err != nil {
				return err
			}
			if o.Assumed == "" && slices.Equal(o.Roles, []string{"ROLE_PLATFORM"}) && !slices.Equal(roles, o.Roles) {
				return fmt.Errorf("%s: only ROLE_PLATFORM may call it (spec sections %s)", id, strings.Join(o.Clauses, ", "))
			}
		}
	case "webhook_routes":
		for id, route := range p.WebhookRoutes {
			o, err := op(id)
			if err != nil {
				return err
			}
			if o.Assumed != "webhook_routes" {
				return fmt.Errorf("%s: its route is not a choice of the target", id)
			}
			m, pth, ok := strings.Cut(route, " ")
			if !ok || !slices.Contains([]string{"POST", "PUT", "PATCH"}, m) || !strings.HasPrefix(pth, "/") {
				return fmt.Errorf("%s: %q is not \"POST|PUT|PATCH /path\"", id, route)
			}
		}
	case "event_fields":
		return checkEventFields(p.EventFields)
	case "extensions":
		for _, id := range p.Extensions {
			o, err := op(id)
			if err != nil {
				return err
			}
			if o.Assumed != "extensions" {
				return fmt.Errorf("%s is not an extension", id)
			}
		}
	case "error_field_member":
		if p.ErrorFieldMember == "" {
			return errors.New("empty member name")
		}
	case "authorization_expiry_hours":
		if p.AuthorizationExpiryHours < 1 {
			return fmt.Errorf("%d is not a positive number of hours", p.AuthorizationExpiryHours)
		}
	}
	return nil
}

// checkRefusalForm checks a kind's form: every status a 4xx, every
// per-operation form of an operation that exists.
func checkRefusalForm(kind string, r RefusalForm, op func(string) (validate.Operation, error)) error {
	if err := refusalStatuses(kind, r); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(r.Operations)) {
		if _, err := op(id); err != nil {
			return fmt.Errorf("%s.operations: %w", kind, err)
		}
		if err := refusalStatuses(kind+".operations."+id, r.Operations[id]); err != nil {
			return err
		}
	}
	return nil
}

// refusalStatuses checks that every status of a form (named where) is a 4xx.
func refusalStatuses(where string, r RefusalForm) error {
	for _, st := range r.Statuses() {
		if st < 400 || st > 499 {
			return fmt.Errorf("%s: status %d is not a 4xx (a refusal is a 4xx, spec section 7)", where, st)
		}
	}
	return nil
}

// mediaType checks that val is a media type (type/subtype).
func mediaType(val string) error {
	if mt, _, err := mime.ParseMediaType(val); err != nil || !strings.Contains(mt, "/") {
		return fmt.Errorf("%q is not a media type (type/subtype)", val)
	}
	return nil
}

func success(status int) error {
	if status < 200 || status > 299 {
		return fmt.Errorf("%d is not a 2xx status", status)
	}
	return nil
}
