package ledger

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"time"
)

// The domain records. Exported fields are the JSON representation of the
// resource (spec section 2); unexported fields are bookkeeping that never
// leaves the process. Records are owned by the store and copied out under its
// lock, so a handler never sees a record another goroutine is changing.

// Meta holds what every record has: id, timestamps and the owning application.
type Meta struct {
	ID        string   `json:"id"`
	CreatedAt JSONTime `json:"created_at"`
	UpdatedAt JSONTime `json:"updated_at"`
	App       string   `json:"-"`
}

// AppID is the owning application (Record).
func (m *Meta) AppID() string { return m.App }

// MetaRef is the record's meta, promoted to every record type (a store
// reaches the common fields of any record through it).
func (m *Meta) MetaRef() *Meta { return m }

// RecordKey is the record's place in creation order: created_at, then id.
func (m *Meta) RecordKey() (time.Time, string) { return time.Time(m.CreatedAt), m.ID }

// SortValue returns the value of a sortable field shared by every record;
// a field the record does not have is the zero sortVal.
func (m *Meta) SortValue(field string) SortVal {
	switch field {
	case "id":
		return SortVal{Str: m.ID}
	case "created_at":
		return SortVal{Int: time.Time(m.CreatedAt).UnixNano()}
	case "updated_at":
		return SortVal{Int: time.Time(m.UpdatedAt).UnixNano()}
	}
	return SortVal{}
}

// NewMeta is the meta of a record of app created at now.
func NewMeta(id, app string, now time.Time) Meta {
	return Meta{ID: id, CreatedAt: JSONTime(now), UpdatedAt: JSONTime(now), App: app}
}

// Tags are a resource's tags, name to value.
type Tags map[string]string

// null renders as JSON null; the spec shows several fields that are always null.
type null *struct{}

// Roles (spec section 5).
const (
	RolePlatform = "ROLE_PLATFORM"
	RoleMerchant = "ROLE_MERCHANT"
)

// User is one HTTP Basic user of an application, with its role.
type User struct {
	ID       string
	Password string // in memory; "" when only its salted hash is kept
	Role     string
	App      string
	// Salt and hash (SHA-256 of salt and password) are what a store that
	// outlives the process keeps instead of the password (pgstore/unit.go).
	Salt, Hash []byte
}

// PasswordDigest is what authenticate compares in constant time: the
// salted hash when the user has one, else SHA-256 of its password.
func (u User) PasswordDigest(password string) [32]byte {
	if u.Hash != nil {
		return SaltedHash(u.Salt, password)
	}
	return sha256.Sum256([]byte(password))
}

// WantDigest is the user's own digest, compared with passwordDigest's.
func (u User) WantDigest() [32]byte {
	if u.Hash != nil {
		var d [32]byte
		copy(d[:], u.Hash)
		return d
	}
	return sha256.Sum256([]byte(u.Password))
}

// SaltedHash is SHA-256 of salt and password. The sandbox's passwords are
// random 32-character tokens, so a fast hash is enough to keep them out of
// the database's plain text.
func SaltedHash(salt []byte, password string) [32]byte {
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(password))
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// Identity is an identity (buyer or merchant).
type Identity struct {
	Meta
}

// Address is a payment card's billing address.
type Address struct {
	Line1      *string `json:"line1"`
	Line2      *string `json:"line2"`
	City       *string `json:"city"`
	Region     *string `json:"region"`
	PostalCode string  `json:"postal_code"`
	Country    *string `json:"country"`
}

// PaymentInstrument is a payment card: its bin, last four and fingerprint,
// never its whole number nor its security code.
type PaymentInstrument struct {
	Meta
	Application              string  `json:"application"`
	Fingerprint              string  `json:"fingerprint"`
	Tags                     Tags    `json:"tags"`
	ExpirationMonth          int     `json:"expiration_month"`
	ExpirationYear           int     `json:"expiration_year"`
	Bin                      string  `json:"bin"`
	LastFour                 string  `json:"last_four"`
	Brand                    string  `json:"brand"`
	CardType                 string  `json:"card_type"`
	Name                     string  `json:"name"`
	Address                  Address `json:"address"`
	AddressVerification      string  `json:"address_verification"`
	SecurityCodeVerification string  `json:"security_code_verification"`
	InstrumentType           string  `json:"instrument_type"`
	Type                     string  `json:"type"`
	Currency                 string  `json:"currency"`
	Identity                 string  `json:"identity"`
}

// Authorization is a card authorization and what was captured of it.
type Authorization struct {
	Meta
	Application            string          `json:"application"`
	Amount                 int64           `json:"amount"`
	Tags                   Tags            `json:"tags"`
	State                  string          `json:"state"`
	Currency               string          `json:"currency"`
	Transfer               *string         `json:"transfer"`
	Messages               []string        `json:"messages"`
	Raw                    null            `json:"raw"`
	TraceID                string          `json:"trace_id"`
	Source                 string          `json:"source"`
	MerchantIdentity       string          `json:"merchant_identity"`
	ThreeDSRedirectURL     *string         `json:"3ds_redirect_url"`
	IsVoid                 bool            `json:"is_void"`
	VoidState              string          `json:"void_state"`
	ExpiresAt              JSONTime        `json:"expires_at"`
	IdempotencyID          *string         `json:"idempotency_id"`
	AdditionalPurchaseData json.RawMessage `json:"additional_purchase_data,omitempty"`
	Merchant               string          `json:"-"`
}

// SortValue is the value of a sortable field (amount included).
func (a *Authorization) SortValue(field string) SortVal {
	if field == "amount" {
		return SortVal{Int: a.Amount}
	}
	return a.Meta.SortValue(field)
}

// Adjustment holds the fields only dispute adjustment transfers carry.
type Adjustment struct {
	AmountRequested          int64  `json:"amount_requested"`
	AdditionalBuyerCharges   null   `json:"additional_buyer_charges"`
	AdditionalHealthcareData null   `json:"additional_healthcare_data"`
	AddressVerification      null   `json:"address_verification"`
	FailureCode              null   `json:"failure_code"`
	FailureMessage           null   `json:"failure_message"`
	SecurityCodeVerification null   `json:"security_code_verification"`
	DisputedTransfer         string `json:"-"`
	Dispute                  string `json:"-"` // the dispute whose adjustment this is
}

// Transfer is a sale, a capture, or a dispute's adjustment.
type Transfer struct {
	Meta
	Amount                 int64           `json:"amount"`
	Tags                   Tags            `json:"tags"`
	State                  string          `json:"state"`
	TraceID                string          `json:"trace_id"`
	Currency               string          `json:"currency"`
	Application            string          `json:"application"`
	Source                 *string         `json:"source"`
	Destination            *string         `json:"destination"`
	ReadyToSettleAt        *JSONTime       `json:"ready_to_settle_at"`
	ExternallyFunded       string          `json:"externally_funded"`
	Fee                    int64           `json:"fee"`
	StatementDescriptor    *string         `json:"statement_descriptor"`
	Type                   string          `json:"type"`
	Subtype                string          `json:"subtype"`
	Messages               []string        `json:"messages"`
	Raw                    null            `json:"raw"`
	IdempotencyID          *string         `json:"idempotency_id"`
	MerchantIdentity       string          `json:"merchant_identity"`
	AdditionalPurchaseData json.RawMessage `json:"additional_purchase_data,omitempty"`
	*Adjustment
}

// SortValue is the value of a sortable field (amount included).
func (t *Transfer) SortValue(field string) SortVal {
	if field == "amount" {
		return SortVal{Int: t.Amount}
	}
	return t.Meta.SortValue(field)
}

// Merchant is a merchant of an identity, with its Level 2/3 setting.
type Merchant struct {
	Meta
	Application                       string           `json:"application"`
	Identity                          string           `json:"identity"`
	Verification                      string           `json:"verification"`
	MerchantProfile                   string           `json:"merchant_profile"`
	Processor                         string           `json:"processor"`
	ProcessingEnabled                 bool             `json:"processing_enabled"`
	SettlementEnabled                 bool             `json:"settlement_enabled"`
	GrossSettlementEnabled            bool             `json:"gross_settlement_enabled"`
	CreatingTransferFromReportEnabled bool             `json:"creating_transfer_from_report_enabled"`
	CardExpirationDateRequired        bool             `json:"card_expiration_date_required"`
	CardCVVRequired                   bool             `json:"card_cvv_required"`
	Tags                              Tags             `json:"tags"`
	MCC                               string           `json:"mcc"`
	MID                               string           `json:"mid"`
	MerchantName                      string           `json:"merchant_name"`
	SettlementFundingIdentifier       string           `json:"settlement_funding_identifier"`
	ReadyToSettleUpon                 string           `json:"ready_to_settle_upon"`
	FeeReadyToSettleUpon              string           `json:"fee_ready_to_settle_upon"`
	LevelTwoLevelThreeDataEnabled     bool             `json:"level_two_level_three_data_enabled"`
	OnboardingState                   string           `json:"onboarding_state"`
	ProcessorDetails                  ProcessorDetails `json:"processor_details"`
}

// ProcessorDetails is a merchant's processor, its api key always masked.
type ProcessorDetails struct {
	MID    string `json:"mid"`
	APIKey string `json:"api_key"`
}

// MaskedAPIKey is the only value processor_details.api_key ever takes.
const MaskedAPIKey = "<API_KEY>"

// SubscriptionSchedule is a subscription schedule.
type SubscriptionSchedule struct {
	Meta
	CreatedBy               string         `json:"created_by"`
	LineItemType            string         `json:"line_item_type"`
	Nickname                string         `json:"nickname"`
	SubscriptionType        string         `json:"subscription_type"`
	PeriodOffset            map[string]any `json:"period_offset,omitempty"`
	FixedTimeIntervalOffset map[string]any `json:"fixed_time_interval_offset,omitempty"`
	Tags                    Tags           `json:"tags"`
}

type feeAmountData struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Label    string `json:"label"`
}

// SubscriptionAmount is an amount of a subscription schedule.
type SubscriptionAmount struct {
	Meta
	AmountType           string        `json:"amount_type"`
	CreatedBy            string        `json:"created_by"`
	FeeAmountData        feeAmountData `json:"fee_amount_data"`
	Nickname             string        `json:"nickname"`
	SubscriptionSchedule string        `json:"subscription_schedule"`
	Tags                 Tags          `json:"tags"`
	ProducedByUpdate     bool          `json:"-"`
	Updated              bool          `json:"-"`
}

// SubscriptionEnrollment is a merchant's enrollment in a schedule.
type SubscriptionEnrollment struct {
	Meta
	CreatedBy            string    `json:"created_by"`
	EndedAt              *JSONTime `json:"ended_at"`
	Merchant             string    `json:"merchant"`
	Nickname             string    `json:"nickname"`
	StartedAt            JSONTime  `json:"started_at"`
	SubscriptionSchedule string    `json:"subscription_schedule"`
	Tags                 Tags      `json:"tags"`
}

// DisputeDetails is what the card network says of a dispute.
type DisputeDetails struct {
	ARN string `json:"arn"`
}

// Dispute is a dispute of a sale.
type Dispute struct {
	Meta
	Application    string         `json:"application"`
	Tags           Tags           `json:"tags"`
	Amount         int64          `json:"amount"`
	State          string         `json:"state"`
	Transfer       string         `json:"transfer"`
	Reason         string         `json:"reason"`
	Message        *string        `json:"message"`
	Action         *string        `json:"action"`
	Identity       string         `json:"identity"`
	OccurredAt     JSONTime       `json:"occurred_at"`
	RespondBy      JSONTime       `json:"respond_by"`
	DisputeDetails DisputeDetails `json:"dispute_details"`
}

// SortValue is the value of a sortable field (amount included).
func (d *Dispute) SortValue(field string) SortVal {
	if field == "amount" {
		return SortVal{Int: d.Amount}
	}
	return d.Meta.SortValue(field)
}

// Evidence is a file uploaded to a dispute.
type Evidence struct {
	Meta
	Dispute string `json:"dispute"`
	State   string `json:"state"`
	Tags    Tags   `json:"tags"`
}

// BalanceTransfer is a balance transfer.
type BalanceTransfer struct {
	Meta
	Amount              int64  `json:"amount"`
	Currency            string `json:"currency"`
	Description         string `json:"description"`
	Source              string `json:"source"`
	Destination         string `json:"destination"`
	ExternalReferenceID string `json:"external_reference_id"`
	ReferenceID         string `json:"reference_id"`
	ProcessorType       string `json:"processor_type"`
	State               string `json:"state"`
	Tags                Tags   `json:"tags"`
}

// SortValue is the value of a sortable field (amount included).
func (b *BalanceTransfer) SortValue(field string) SortVal {
	if field == "amount" {
		return SortVal{Int: b.Amount}
	}
	return b.Meta.SortValue(field)
}

// File is a file, its content once uploaded, and its review state.
type File struct {
	Meta
	ApplicationID string  `json:"application_id"`
	DisplayName   string  `json:"display_name"`
	Extension     *string `json:"extension"`
	LinkedTo      string  `json:"linked_to"`
	LinkedType    string  `json:"linked_type"`
	Status        string  `json:"status"`
	Type          string  `json:"type"`
	Tags          Tags    `json:"tags"`
	Content       []byte  `json:"-"`
	ContentType   string  `json:"-"`
	// ContentRef names content a store keeps apart from the record and
	// streams (contentStore), contentSize its length; content is nil then.
	ContentRef  string `json:"-"`
	ContentSize int64  `json:"-"`
}

// contentLen is the length of the file's uploaded content.
func (f *File) contentLen() int64 {
	if f.Content != nil {
		return int64(len(f.Content))
	}
	return f.ContentSize
}

// HasContent reports whether the file's content was uploaded.
func (f *File) HasContent() bool { return f.Content != nil || f.ContentRef != "" }

// ExternalLink is a file's external link: an upload URL with its own
// expiry.
type ExternalLink struct {
	Meta
	FileID    string   `json:"file_id"`
	Type      string   `json:"type"`
	Duration  int      `json:"duration"`
	ExpiresAt JSONTime `json:"expires_at"`
	Expired   bool     `json:"expired"`
	URL       string   `json:"url"`
	UserID    string   `json:"user_id"`
	Tags      Tags     `json:"tags"`
}

// Webhook authentication types that put an Authorization header on deliveries.
const (
	HookAuthBasic  = "BASIC"
	hookAuthBearer = "BEARER"
)

// WebhookAuthentication is a webhook's stored authentication (spec §4.9:
// "settings used when sending events"). Its JSON form, in every response and
// event, carries the type and a BASIC username only: the password and the
// bearer token are credentials and are never rendered (see MarshalJSON).
type WebhookAuthentication struct {
	Type     string
	Username string `json:"-"`
	Password string `json:"-"` // BASIC
	Token    string `json:"-"` // BEARER
}

// MarshalJSON renders {"type"} and, for BASIC, {"basic":{"username"}}.
func (a WebhookAuthentication) MarshalJSON() ([]byte, error) {
	type basic struct {
		Username string `json:"username"`
	}
	out := struct {
		Type  string `json:"type"`
		Basic *basic `json:"basic,omitempty"`
	}{Type: a.Type}
	if a.Type == HookAuthBasic {
		out.Basic = &basic{Username: a.Username}
	}
	return json.Marshal(out)
}

// Header is the Authorization header a delivery carries ("" for none): BASIC
// sends the username and password, BEARER a non-empty token, NONE nothing.
func (a WebhookAuthentication) Header() string {
	switch a.Type {
	case HookAuthBasic:
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(a.Username+":"+a.Password))
	case hookAuthBearer:
		if a.Token != "" {
			return "Bearer " + a.Token
		}
	}
	return ""
}

// Webhook is a webhook: its URL, filters, state and signing secret.
type Webhook struct {
	Meta
	Application             string                `json:"application"`
	URL                     string                `json:"url"`
	Enabled                 bool                  `json:"enabled"`
	EnabledEvents           []any                 `json:"enabled_events"`
	Authentication          WebhookAuthentication `json:"authentication"`
	PreviousSecretExpiresAt *JSONTime             `json:"previous_secret_expires_at"`
	SecretSigningKey        string                `json:"secret_signing_key,omitempty"`
	Tags                    Tags                  `json:"tags"`
}
